"""The shipped JSON Schema of config.json: real configs validate with check-jsonschema, and the
schema and memsite's own validation agree on what a config may hold."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memsite
from memsite.core.config import DEFAULT_CONFIG, default_config_text, parse_config
from memsite.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
SCHEMA_PATH = Path(memsite.__file__).parent / "config.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def check_jsonschema(schema: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    return subprocess.run(
        [tool, "--schemafile", str(schema), *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_defaults_demo_and_own_config_validate(tmp_path: Path) -> None:
    defaults = tmp_path / "defaults.json"
    defaults.write_text(default_config_text(), encoding="utf-8")
    with_schema = tmp_path / "with-schema.json"
    with_schema.write_text(json.dumps({"$schema": str(SCHEMA_PATH), **DEFAULT_CONFIG}))
    files = [
        defaults,
        with_schema,
        REPO / "examples" / "demo" / ".memsite" / "config.json",
        REPO / ".memsite" / "config.json",
    ]
    done = check_jsonschema(SCHEMA_PATH, *files)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_wrong_config_fails_check_jsonschema(tmp_path: Path) -> None:
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"memory": {"autoInjectTokenBudget": 0, "colour": "red"}}))
    done = check_jsonschema(SCHEMA_PATH, bad)
    assert done.returncode == 1 and "autoInjectTokenBudget" in done.stdout


def test_a_leanspec_config_memory_object_validates(tmp_path: Path) -> None:
    wrapper = tmp_path / "leanspec.schema.json"
    wrapper.write_text(
        json.dumps(
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"memory": {"$ref": SCHEMA_PATH.as_uri() + "#/$defs/memory"}},
            }
        )
    )
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"specsDir": "specs", "memory": {"trackDaily": True}}))
    done = check_jsonschema(wrapper, config)
    assert done.returncode == 0, done.stdout + done.stderr


def accepted_by_memsite(config: dict[str, Any]) -> bool:
    try:
        parse_config(config, "config.json")
    except ConfigError:
        return False
    return True


EXAMPLES: list[dict[str, Any]] = [
    {},
    DEFAULT_CONFIG,
    {"memory": {"autoInjectTokenBudget": 2000.0}},
    {"memory": {"autoInjectTokenBudget": 0}},
    {"memory": {"autoInjectTokenBudget": 1_000_001}},
    {"memory": {"autoInjectTokenBudget": "big"}},
    {"memory": {"autoInjectTokenBudget": True}},
    {"memory": {"dailyRetentionDays": 36_500}},
    {"memory": {"dailyRetentionDays": 36_501}},
    {"memory": {"enabled": 1}},
    {"memory": {"categories": {}}},
    {"memory": {"categories": {"ops": 0}}},
    {"memory": {"categories": {"ops": 0.25, "runbooks": 3}}},
    {"memory": {"categories": {"Ops": 1}}},
    {"memory": {"categories": {"ops": True}}},
    {"memory": {"limits": {"contentMax": 100_000}}},
    {"memory": {"limits": {"contentMax": 100_001}}},
    {"memory": {"limits": {"agentMax": 256, "tagsMax": 1}}},
    {"memory": {"limits": {"other": 1}}},
    {"memory": {"colour": 1}},
    {"memroy": {}},
    {"$schema": "./config.schema.json"},
    {"$schema": 3},
    {"site": {"site_name": "M", "site_url": None, "palette": [{"scheme": "slate"}]}},
    {"site": {"theme": "x"}},
    {"site": {"site_url": 3}},
    {"site": {"extra_nav": [{"Source": "https://example.com"}]}},
    {"site": {"extra_nav": [{"Guide": "docs/guide/"}]}},
    {"site": {"extra_nav": [{"Evil": "javascript:alert(1)"}]}},
    {"site": {"site_url": "https://acme.github.io/memory/", "repo_url": ""}},
    {"site": {"repo_url": "javascript:alert(1)"}},
    {"site": {"repo_url": "https://user:token@github.com/acme/x"}},
    {"site": {"site_url": 'https://x.example/"><script>'}},
    {"site": {"palette": {"scheme": "slate", "primary": "deep-purple", "accent": "light blue"}}},
    {"site": {"palette": [{"accent": "white"}]}},
    {"site": {"palette": [{"media": "(prefers-color-scheme: dark)", "toggle": {"name": "x"}}]}},
    {"site": {"palette": [{"toggle": {"icon": "material/brightness-4", "name": "Dark"}}]}},
    {"site": {"repo_url": "https://github.com/[acme"}},
    {"site": {"language": "pt-BR"}},
    {"site": {"language": "../en"}},
]


@pytest.mark.parametrize("config", EXAMPLES, ids=[json.dumps(c)[:60] for c in EXAMPLES])
def test_schema_and_memsite_agree(config: dict[str, Any]) -> None:
    assert VALIDATOR.is_valid(config) == accepted_by_memsite(config)


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=2_000_000),
    st.floats(min_value=-10, max_value=2e6, allow_nan=False),
    st.text(max_size=5),
)


@settings(max_examples=300)
@given(
    key=st.sampled_from(
        (
            "enabled",
            "autoInjectTokenBudget",
            "dailyRetentionDays",
            "trackDaily",
            "autoFlush",
            "autoCompact",
            "other",
        )
    ),
    value=values,
    weight=values,
    limit=st.tuples(st.sampled_from(["contentMax", "tagsMax", "agentMax", "x"]), values),
)
def test_schema_and_memsite_agree_on_generated_memory_settings(
    key: str, value: Any, weight: Any, limit: tuple[str, Any]
) -> None:
    for memory in ({key: value}, {"categories": {"ops": weight}}, {"limits": dict([limit])}):
        config = {"memory": memory}
        assert VALIDATOR.is_valid(config) == accepted_by_memsite(config), config
