"""Secret safety end to end.

Fake credentials in every supported format are refused at write without being echoed; planted
by hand they are redacted in every view and answer and reported by `review`; `--allow-secret`
publishes them as the team decided; ordinary facts and the demo store never trip the scanner;
and `memsite add` does not import detect-secrets for an ordinary fact.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memsite.core import detector
from memsite.core import prefilter as prefilter_patterns
from memsite.core.secrets import prefilter, redact, scan
from memsite.core.text import NAME_RE
from tests.conftest import Invoke, make_entry, write_raw
from tests.secrets_corpus import FAKE_SECRETS, ORDINARY_FACTS, FakeSecret
from tests.test_startup import imported_modules

REPO = Path(__file__).resolve().parents[2]
DEMO_STORE = REPO / "examples" / "demo" / ".memsite"
NAMED = [s for s in FAKE_SECRETS if s.name_form is not None]
STANDALONE = [s for s in FAKE_SECRETS if s.standalone]
ORDINARY_FACT = "Use pnpm for installs; the lockfile is pnpm-lock.yaml."


def ids(items: list[FakeSecret]) -> list[str]:
    return [s.name for s in items]


def pieces(value: str) -> list[str]:
    """What must never show in an output: the value, or each line of a multi-line key."""
    return [part for part in value.split() if len(part) >= 8] or [value]


def assert_absent(value: str, *outputs: str, **named: str) -> None:
    """No piece of ``value`` in any output (named outputs are named in the failure)."""
    for label, output in [*((f"output {i}", o) for i, o in enumerate(outputs)), *named.items()]:
        for piece in pieces(value):
            assert piece not in output, f"the value leaks into {label}"


def assert_present(value: str, output: str) -> None:
    for piece in pieces(value):
        assert piece in output


def known_kinds() -> set[str]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    kinds = {detector.slug(name) for name in get_mapping_from_secret_type_to_class()}
    kinds |= {kind for kind, _, _ in prefilter_patterns._SHAPES}
    return kinds | {"secret-keyword", "high-entropy-string"}


KINDS = known_kinds()


def assert_one_line_error_naming_a_kind(stderr: str) -> None:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), stderr
    assert any(re.search(rf"(?<![\w-]){re.escape(kind)}(?![\w-])", lines[0]) for kind in KINDS), (
        lines[0]
    )


def entry_files(store_root: Path) -> list[Path]:
    return sorted((store_root / "entries").glob("*.json"))


def search_word(secret: FakeSecret) -> str:
    """A plain word of the fact (not part of the value) to find the entry by."""
    words: list[str] = re.findall(r"(?<![\w-])[A-Za-z]{5,}(?![\w-])", secret.fact)
    return next(w for w in words if w not in secret.value)


# --- the corpus itself ------------------------------------------------------------------------


def test_corpus_covers_the_documented_formats() -> None:
    assert len(FAKE_SECRETS) >= 30
    assert len({s.name for s in FAKE_SECRETS}) == len(FAKE_SECRETS)
    assert len(ORDINARY_FACTS) >= 100
    assert len(set(ORDINARY_FACTS)) == len(ORDINARY_FACTS)
    for secret in FAKE_SECRETS:
        assert secret.value in secret.fact or all(p in secret.fact for p in pieces(secret.value))
    for secret in NAMED:
        assert secret.name_form is not None and NAME_RE.fullmatch(secret.name_form)


def test_corpus_is_deterministic() -> None:
    import importlib

    import tests.secrets_corpus as corpus

    again = importlib.reload(corpus)
    assert again.FAKE_SECRETS == FAKE_SECRETS


# --- oracle consistency -----------------------------------------------------------------------


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=ids(FAKE_SECRETS))
def test_full_scan_finds_every_fake_credential(secret: FakeSecret) -> None:
    hits = scan(secret.fact, full=True)
    assert hits
    assert all(h.kind in KINDS for h in hits)


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=ids(FAKE_SECRETS))
def test_prefilter_never_misses_what_the_library_finds(secret: FakeSecret) -> None:
    assert prefilter(secret.fact)


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=ids(FAKE_SECRETS))
def test_redact_removes_the_value(secret: FakeSecret) -> None:
    for text in (redact(secret.fact), redact(secret.fact, full=True)):
        assert "[redacted: " in text
        assert_absent(secret.value, text)


@pytest.mark.parametrize("secret", STANDALONE, ids=ids(STANDALONE))
def test_a_standalone_value_is_found_without_context(secret: FakeSecret) -> None:
    assert prefilter(secret.value)
    assert scan(secret.value, full=True)


@pytest.mark.parametrize("secret", NAMED, ids=ids(NAMED))
def test_name_forms_are_found_too(secret: FakeSecret) -> None:
    assert secret.name_form is not None
    assert prefilter(secret.name_form)
    assert scan(secret.name_form, full=True)


# --- refusal at write -------------------------------------------------------------------------


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=ids(FAKE_SECRETS))
def test_add_refuses_content_holding_a_secret(
    runner: Invoke, store_root: Path, secret: FakeSecret
) -> None:
    result = runner("add", secret.fact, "-c", "operations", "--json")
    assert result.exit_code == 1
    assert_one_line_error_naming_a_kind(result.stderr)
    assert "--allow-secret" in result.stderr
    assert "looks like a secret" in result.json()["error"]
    assert_absent(secret.value, result.stdout, result.stderr)
    assert entry_files(store_root) == []


@pytest.mark.parametrize("secret", NAMED, ids=ids(NAMED))
def test_add_refuses_a_tag_holding_a_secret(
    runner: Invoke, store_root: Path, secret: FakeSecret
) -> None:
    assert secret.name_form is not None
    result = runner(
        "add", ORDINARY_FACT, "-c", "operations", "-t", f"ci,{secret.name_form}", "--json"
    )
    assert result.exit_code == 1
    assert_one_line_error_naming_a_kind(result.stderr)
    assert_absent(secret.name_form, result.stdout, result.stderr)
    assert entry_files(store_root) == []


@pytest.mark.parametrize("secret", NAMED, ids=ids(NAMED))
def test_add_refuses_a_key_holding_a_secret(
    runner: Invoke, store_root: Path, secret: FakeSecret
) -> None:
    assert secret.name_form is not None
    result = runner("add", ORDINARY_FACT, "-c", "operations", "--key", secret.name_form, "--json")
    assert result.exit_code == 1
    assert_one_line_error_naming_a_kind(result.stderr)
    assert_absent(secret.name_form, result.stdout, result.stderr)
    assert entry_files(store_root) == []


@pytest.mark.parametrize("option", ["--key", "-t"])
@pytest.mark.parametrize("secret", STANDALONE, ids=ids(STANDALONE))
def test_a_secret_pasted_as_key_or_tag_is_never_echoed(
    runner: Invoke, store_root: Path, secret: FakeSecret, option: str
) -> None:
    # Most token formats are not valid names (upper case, ':', '/', '='): refused as a secret
    # or as an invalid name, the error must not repeat the value.
    result = runner("add", ORDINARY_FACT, "-c", "operations", option, secret.value, "--json")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ")
    assert_absent(secret.value, result.stdout, result.stderr)
    assert_absent(secret.value.lower(), result.stdout, result.stderr)
    assert entry_files(store_root) == []


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=ids(FAKE_SECRETS))
def test_log_refuses_a_secret(runner: Invoke, store_root: Path, secret: FakeSecret) -> None:
    result = runner("log", secret.fact, "--json")
    assert result.exit_code == 1
    assert_one_line_error_naming_a_kind(result.stderr)
    assert_absent(secret.value, result.stdout, result.stderr)
    assert not list(store_root.glob("daily/*"))


@pytest.mark.parametrize("fact", ["The staging DB pwd: s3cr3tValue!", "contraseña: s3cr3tValue!"])
def test_add_refuses_what_review_would_report(runner: Invoke, store_root: Path, fact: str) -> None:
    # The full scan's keyword detector knows "pwd" and "contraseña"; the prefilter once did
    # not, and the fact was written (then reported by `review`).
    assert scan(fact, full=True)
    result = runner("add", fact, "-c", "operations", "--json")
    assert result.exit_code == 1
    assert_one_line_error_naming_a_kind(result.stderr)
    assert_absent("s3cr3tValue!", result.stdout, result.stderr)
    assert entry_files(store_root) == []


def test_amend_refuses_a_secret(runner: Invoke, store_root: Path) -> None:
    secret = FAKE_SECRETS[0]
    first = runner("add", ORDINARY_FACT, "-c", "operations", "--json")
    assert first.exit_code == 0, first.stderr
    result = runner("amend", first.json()["id"], secret.fact, "--json")
    assert result.exit_code == 1
    assert_one_line_error_naming_a_kind(result.stderr)
    assert_absent(secret.value, result.stdout, result.stderr)
    assert len(entry_files(store_root)) == 1


# --- --allow-secret: written, marked, published as decided ------------------------------------


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=ids(FAKE_SECRETS))
def test_allow_secret_round_trips(runner: Invoke, store_root: Path, secret: FakeSecret) -> None:
    added = runner("add", secret.fact, "-c", "operations", "--allow-secret", "--json")
    assert added.exit_code == 0, added.stderr
    answer = added.json()
    assert answer["status"] == "written"
    on_disk = json.loads(Path(answer["path"]).read_text(encoding="utf-8"))
    assert on_disk["allow_secret"] is True
    assert on_disk["content"] == secret.fact

    read = runner("read", answer["id"], "--json")
    assert read.exit_code == 0, read.stderr
    assert read.json()["content"] == secret.fact
    assert "[redacted: " not in read.stdout
    # a link carrying a password is also a way to send data out: the trust gate holds it back
    # from agents until a person approves it (core.directives), allowed secret or not
    link = secret.name == "https URL with user and password"
    assert read.json().get("held_back") == ("suspicious:exfiltration-link" if link else None)
    if link:
        assert runner("approve", answer["id"]).exit_code == 0

    assert runner("compact", "--quiet").exit_code == 0
    index = (store_root / "index.md").read_text(encoding="utf-8")
    compacted = (store_root / "compacted" / "operations.md").read_text(encoding="utf-8")
    for text in (index, compacted, runner("context").stdout):
        assert "[redacted: " not in text
        assert_present(secret.value, text)

    review = runner("review", "--json")
    assert review.exit_code == 0, review.stderr
    assert [f for f in review.json()["findings"] if f["kind"] == "secret"] == []


# --- planted by hand: redacted everywhere, reported by review ----------------------------------


def plant(store_root: Path, content: str, **fields: Any) -> dict[str, Any]:
    entry = make_entry(content, "operations", id=str(uuid.uuid4()), **fields)
    write_raw(store_root, entry)
    return entry


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=ids(FAKE_SECRETS))
def test_planted_secret_never_reaches_an_output(
    runner: Invoke, store_root: Path, secret: FakeSecret
) -> None:
    entry = plant(store_root, secret.fact)
    entry_id = str(entry["id"])
    if secret.name == "https URL with user and password":  # held back as a link sending data
        assert runner("approve", entry_id).exit_code == 0  # out: approved, to reach index.md

    assert runner("compact", "--quiet").exit_code == 0
    views = {
        "index.md": (store_root / "index.md").read_text(encoding="utf-8"),
        **{
            f"compacted/{p.name}": p.read_text(encoding="utf-8")
            for p in (store_root / "compacted").glob("*.md")
        },
    }
    assert "[redacted: " in views["index.md"]
    assert "[redacted: " in views["compacted/operations.md"]

    answers = {
        "context": runner("context"),
        "context --format claude-hook": runner("context", "--format", "claude-hook"),
        "read": runner("read", entry_id, "--json"),
        "list": runner("list", "--json"),
        "list --all": runner("list", "--all", "--json"),
        "search": runner("search", search_word(secret), "--json"),
    }
    for name, result in answers.items():
        assert result.exit_code == 0, (name, result.stderr)
        assert "[redacted: " in result.stdout, name
        views[name] = result.stdout + result.stderr
    assert entry_id in [row["id"] for row in answers["search"].json()]
    assert_absent(secret.value, **views)


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=ids(FAKE_SECRETS))
def test_review_reports_a_planted_secret_without_its_value(
    runner: Invoke, store_root: Path, secret: FakeSecret
) -> None:
    entry = plant(store_root, secret.fact)
    result = runner("review", "--json")
    assert result.exit_code == 0, result.stderr
    found = [f for f in result.json()["findings"] if f["kind"] == "secret"]
    assert len(found) == 1
    assert found[0]["ids"] == [entry["id"]]
    assert found[0]["files"] == [entry_files(store_root)[0].name]
    assert_absent(secret.value, result.stdout, result.stderr)
    text = runner("review")
    assert "secret:" in text.stdout
    assert_absent(secret.value, text.stdout, text.stderr)


@pytest.mark.parametrize("secret", NAMED, ids=ids(NAMED))
def test_planted_secret_in_tags_key_reason_and_agent_is_redacted(
    runner: Invoke, store_root: Path, secret: FakeSecret
) -> None:
    assert secret.name_form is not None
    entry = plant(
        store_root,
        ORDINARY_FACT,
        tags=["ci", secret.name_form],
        key=secret.name_form,
        reason=f"rotated {secret.name_form}",
        agent=secret.name_form,
    )
    assert runner("compact", "--quiet").exit_code == 0
    outputs = [
        (store_root / "index.md").read_text(encoding="utf-8"),
        (store_root / "compacted" / "operations.md").read_text(encoding="utf-8"),
    ]
    for args in (
        ["context"],
        ["read", str(entry["id"]), "--json"],
        ["list", "--json"],
        ["search", "pnpm", "--json"],
        ["review", "--json"],
    ):
        result = runner(*args)
        assert result.exit_code == 0, (args, result.stderr)
        outputs.append(result.stdout + result.stderr)
    assert "[redacted: " in outputs[1]  # the compacted view shows tags and key
    assert_absent(secret.name_form, *outputs)
    review = json.loads(outputs[-1])
    assert any(f["kind"] == "secret" for f in review["findings"])


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=ids(FAKE_SECRETS))
def test_planted_daily_log_line_is_redacted_in_search(
    runner: Invoke, store_root: Path, secret: FakeSecret
) -> None:
    day = datetime.now(UTC) - timedelta(days=1)
    daily = store_root / "daily"
    daily.mkdir(exist_ok=True)
    line = " ".join(secret.fact.split())
    (daily / f"{day:%Y-%m-%d}-default.md").write_text(
        f"# Daily log {day:%Y-%m-%d} (default)\n\n- 10:00:00Z {line}\n", encoding="utf-8"
    )
    result = runner("search", search_word(secret), "--daily", "--json")
    assert result.exit_code == 0, result.stderr
    rows = result.json()
    assert [r["source"] for r in rows] == ["daily"]
    assert "[redacted: " in rows[0]["text"]
    assert_absent(secret.value, result.stdout, result.stderr)


# --- no false positives ------------------------------------------------------------------------


@pytest.mark.parametrize("fact", ORDINARY_FACTS)
def test_ordinary_fact_is_not_a_secret(fact: str) -> None:
    assert scan(fact, full=True) == []
    assert redact(fact) == fact


@pytest.mark.parametrize("fact", ORDINARY_FACTS)
def test_ordinary_fact_is_accepted(runner: Invoke, store_root: Path, fact: str) -> None:
    result = runner("add", fact, "-c", "operations", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["status"] in ("written", "duplicate")
    assert "allow_secret" not in json.loads(entry_files(store_root)[0].read_text("utf-8"))


def test_ordinary_facts_together_have_no_secret_finding(runner: Invoke) -> None:
    for fact in ORDINARY_FACTS:
        assert runner("add", fact, "-c", "operations").exit_code == 0
    findings = runner("review", "--json").json()["findings"]
    assert [f for f in findings if f["kind"] == "secret"] == []
    assert "[redacted: " not in runner("context", "--budget", "100000").stdout


def test_demo_store_has_no_secret_finding(runner: Invoke, tmp_path: Path) -> None:
    demo = tmp_path / "demo" / ".memsite"
    shutil.copytree(DEMO_STORE, demo)
    files = [json.loads(p.read_text()) for p in (demo / "entries").glob("*.json")]
    count = sum(1 for obj in files if "record" not in obj)  # records are not facts
    assert count > 0
    result = runner("--store", str(demo), "review", "--json")
    assert result.exit_code == 0, result.stderr
    assert [f for f in result.json()["findings"] if f["kind"] == "secret"] == []
    listed = runner("--store", str(demo), "list", "--all", "--json")
    assert len(listed.json()) == count
    assert "[redacted: " not in listed.stdout
    context = runner("--store", str(demo), "context")
    assert context.exit_code == 0 and "[redacted: " not in context.stdout


# --- the library stays out of the hot path -----------------------------------------------------


def test_add_of_an_ordinary_fact_does_not_import_detect_secrets(store_root: Path) -> None:
    code, modules = imported_modules(
        ["add", "ordinary fact", "-c", "conventions"], store_root.parent
    )
    assert code == 0
    assert "memsite.core.secrets" in modules
    assert not any(m.split(".")[0] == "detect_secrets" for m in modules)


def test_add_of_a_suspect_fact_imports_detect_secrets_to_confirm(store_root: Path) -> None:
    # The control for the test above: the check does see the library when it is imported.
    fact = FAKE_SECRETS[0].fact
    code, modules = imported_modules(["add", fact, "-c", "operations"], store_root.parent)
    assert code == 1
    assert any(m.split(".")[0] == "detect_secrets" for m in modules)


def test_strict_build_and_gh_deploy_refuse_while_a_secret_is_present(
    runner: Invoke, store_root: Path, tmp_path: Path
) -> None:
    fake = FAKE_SECRETS[0]
    write_raw(
        store_root,
        make_entry(fake.fact, category="operations", id="5ec7e700-0000-4000-8000-000000000001"),
    )
    result = runner("build", "--strict", "--site-dir", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "refuses to publish" in result.stderr and "5ec7e700" in result.stderr
    assert fake.value not in result.stderr + result.stdout
    assert not (tmp_path / "out").exists()
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    subprocess.run(["git", "init", "-q", str(store_root.parent)], check=True)
    subprocess.run(
        ["git", "-C", str(store_root.parent), "remote", "add", "origin", str(bare)], check=True
    )
    deploy = runner("gh-deploy")
    assert deploy.exit_code == 1 and "refuses to publish" in deploy.stderr
    branches = subprocess.run(
        ["git", "-C", str(bare), "branch", "--list"], capture_output=True, text=True, check=True
    )
    assert branches.stdout == ""  # nothing was pushed
    # once the team marks it a reviewed false positive, the strict build goes through
    runner("delete", "5ec7e700")
    marked = make_entry(fake.fact, category="operations", id="5ec7e700-0000-4000-8000-000000000002")
    marked["allow_secret"] = True
    write_raw(store_root, marked)
    assert runner("build", "--strict", "--site-dir", str(tmp_path / "out")).exit_code == 0
