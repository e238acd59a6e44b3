"""The config is as untrusted as the entries: every number bounded, one line naming the key."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.config import Config, parse_config_text
from memsite.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('{"memory": {"dailyRetentionDays": 999999999}}', "memory.dailyRetentionDays"),
        ('{"memory": {"autoInjectTokenBudget": 0}}', "memory.autoInjectTokenBudget"),
        ('{"memory": {"perPromptTokenBudget": 0}}', "memory.perPromptTokenBudget"),
        ('{"memory": {"perPromptTokenBudget": "300"}}', "memory.perPromptTokenBudget"),
        ('{"memory": {"autoInjectTokenBudget": 10000000000}}', "memory.autoInjectTokenBudget"),
        ('{"memory": {"categories": {"ops": 1e308}}}', "weight of category 'ops'"),
        ('{"memory": {"categories": {"ops": Infinity}}}', "Infinity"),
        ('{"memory": {"categories": {"ops": NaN}}}', "NaN"),
        ('{"memory": {"categories": {"ops": -1}}}', "weight of category 'ops'"),
        ('{"memory": {"limits": {"contentMax": 1e9}}}', "memory.limits.contentMax"),
        ('{"memory": {"limits": {"agentMax": 100000}}}', "memory.limits.agentMax"),
        ('{"memory": {"dailyRetentionDays": ' + "9" * 5000 + "}}", "4,300 digits"),
        ('{"site": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"site": {"palette": ' + "[" * 40 + "]" * 40 + "}}", "nested deeper"),
        ('{"memory": {"categories": {' + ",".join(f'"c{i}": 1' for i in range(300)) + "}}}", "300"),
    ],
    ids=lambda value: value[:40] if isinstance(value, str) and len(value) > 40 else None,
)
def test_extreme_values_are_one_line_naming_the_key(text: str, names: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config_text(text, "config.json")
    message = str(info.value)
    assert names in message and "\n" not in message and len(message) < 600


def test_bounds_admit_generous_real_values() -> None:
    config = parse_config_text(
        json.dumps(
            {
                "memory": {
                    "autoInjectTokenBudget": 200_000,
                    "dailyRetentionDays": 3650,
                    "categories": {"ops": 0.5, "runbooks": 1000},
                    "limits": {"contentMax": 20_000, "agentMax": 128},
                }
            }
        ),
        "config.json",
    )
    assert config.budget == 200_000 and config.categories == {"ops": 0.5, "runbooks": 1000}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300)
@given(
    section=st.sampled_from(["memory", "site"]),
    key=st.sampled_from(
        [
            "enabled",
            "autoInjectTokenBudget",
            "perPromptTokenBudget",
            "dailyRetentionDays",
            "categories",
            "limits",
            "site_name",
            "palette",
            "extra_nav",
            "x",
        ]
    ),
    value=json_values,
)
def test_any_value_is_accepted_or_refused_with_one_line(
    section: str, key: str, value: object
) -> None:
    text = json.dumps({section: {key: value}})
    try:
        config = parse_config_text(text, "config.json")
    except ConfigError as exc:
        assert "\n" not in str(exc)
        return
    assert isinstance(config, Config)
    assert 1 <= config.budget <= 1_000_000
    assert 1 <= config.daily_retention_days <= 36_500


def test_the_per_prompt_budget_defaults_to_300() -> None:
    assert parse_config_text("{}", "config.json").prompt_budget == 300
    given = parse_config_text('{"memory": {"perPromptTokenBudget": 450}}', "config.json")
    assert given.prompt_budget == 450 and given.budget == 2000
