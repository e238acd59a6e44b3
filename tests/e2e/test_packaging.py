"""The wheel ships the package with its templates and site config, and installs a working CLI."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    wheels = list(out.glob("memsite-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


def test_wheel_holds_package_templates_and_site_config(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for template in (ROOT / "templates").rglob("*"):
        if template.is_file():
            rel = template.relative_to(ROOT / "templates").as_posix()
            assert f"memsite/templates/{rel}" in names
    for config in (ROOT / "site-config").rglob("*"):
        if config.is_file():
            rel = config.relative_to(ROOT / "site-config").as_posix()
            assert f"memsite/site_config/{rel}" in names
    assert "memsite/py.typed" in names and "memsite/cli/main.py" in names
    assert "memsite/config.schema.json" in names
    assert not any(name.startswith(("tests/", "examples/", "benchmarks/")) for name in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "memsite = memsite.cli:run" in text
    assert "memsite = memsite.portal.plugin:MemsitePlugin" in text


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_runs(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    # the dependencies come from this interpreter's site-packages; the wheel itself is isolated
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--force-reinstall"]
    done = subprocess.run([*pip, str(wheel)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    probe = (
        "import memsite, pathlib, importlib.resources as r;"
        "p = pathlib.Path(memsite.__file__);"
        "assert 'site-packages' in str(p) and str(p).startswith(" + repr(str(env_dir)) + "), p;"
        "t = r.files('memsite.templates');"
        "c = r.files('memsite.site_config');"
        "print(sorted(x.name for x in t.iterdir())); print(sorted(x.name for x in c.iterdir()))"
    )
    done = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("[") == 2 and "[]" not in done.stdout
    store = tmp_path / "proj"
    store.mkdir()
    cli = env_dir / "bin" / "memsite"
    for args in (["init"], ["add", "Packaged fact", "-c", "conventions"], ["compact", "-q"]):
        done = subprocess.run(
            [str(cli), *args], capture_output=True, text=True, check=False, cwd=store
        )
        assert done.returncode == 0, done.stderr
    assert "Packaged fact" in (store / ".memsite" / "index.md").read_text()
