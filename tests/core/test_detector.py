"""The shortcuts that keep detect-secrets linear never change what it finds.

Each is held against the library run the plain way: a plugin's literal gate against matches
drawn from each of its patterns, an anchored pattern against its own ``findall``, the keyword
detector's anchored, possessive and gated patterns against its ``analyze_line``, shortened
runs of spaces against the full ones, and the windows against what they must cover.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memsite.core import detector


def _plugins() -> dict[str, Any]:
    plugins, _, _ = detector._library()
    return {type(p).__name__: p for p in plugins}


GATED = sorted(detector._PLUGIN_LITERALS)
ANCHORED = sorted(detector._ANCHORED_PLUGINS)


@pytest.mark.parametrize("name", GATED)
def test_each_gated_plugin_exists(name: str) -> None:
    assert name in _plugins()


@pytest.mark.parametrize("name", GATED)
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_every_match_of_a_gated_plugin_passes_its_gate(name: str, data: st.DataObject) -> None:
    plugin = _plugins()[name]
    gate = dict((type(p).__name__, g) for p, g in detector._gated_plugins())[name]
    assert gate is not None
    pattern = data.draw(st.sampled_from(list(_plain(plugin).denylist)))
    text = data.draw(st.from_regex(pattern))
    if pattern.search(text):
        lowered = text.lower() if text.isascii() else None
        assert gate.admits(text, lowered)
        assert gate.admits(text, None)  # the pattern used for texts beyond ASCII agrees


def _plain(plugin: Any) -> Any:
    """The plugin as the library made it (its class's own patterns)."""
    return type(plugin)


_PIECES = st.sampled_from(
    [
        "eyJ",
        "eyJhbGciOi",
        "sk-",
        "T3BlbkFJ",
        "//",
        "/:_authToken=",
        "npm_",
        ".",
        "-",
        "_",
        "=",
        " ",
        "a",
        "B7",
        "x" * 20,
        "0123456789abcdef" * 2,
        "\u00e9",
    ]
)


@pytest.mark.parametrize("name", ANCHORED)
@settings(max_examples=300, deadline=None)
@given(text=st.lists(_PIECES, max_size=20).map("".join))
@example(text="eyJ-" * 10 + "eyJhbGciOi.eyJhbGciOi.abc")
@example(text="sk-" + "a" * 20 + "T3BlbkFJ" + "b" * 20)
def test_an_anchored_plugin_finds_what_its_pattern_finds(name: str, text: str) -> None:
    anchored = dict((type(p).__name__, p) for p, _ in detector._gated_plugins())[name]
    (held,) = anchored.denylist
    assert isinstance(held, detector._AnchoredPattern)
    (plain,) = _plain(anchored).denylist
    assert held.findall(text) == plain.findall(text)
    assert list(anchored.analyze_string(text)) == list(_plugins()[name].analyze_string(text))


_WORDS = st.sampled_from(
    [
        "password",
        "PassWd",
        "pwd",
        "api_key",
        "ApiKey",
        "secret",
        "contraseña",
        "db_pass",
        "token",
        "hunter2Xy9!",
        "s3cr3tValue",
        "= ",
        ": ",
        ":=",
        "==",
        "!=",
        "=>",
        '"',
        "'",
        "`",
        ";",
        "(",
        ")",
        " ",
        "  ",
        "x",
        "_",
        ".",
        ",",
        "\u212a",
    ]
)


def _library_keyword_values(line: str) -> set[str]:
    _, keyword, snippet = detector._library()
    found = keyword.analyze_line(
        filename="memsite.yaml", line=line, line_number=1, context=snippet([line], 1)
    )
    values = set()
    for secret in found:
        words = (secret.secret_value or "").split()
        value = words[0].strip("\"'`,;") if words else ""
        if detector.credential_like(value):
            values.add(value)
    return values


@settings(max_examples=600, deadline=None)
@given(st.lists(_WORDS, max_size=14).map("".join))
@example('private_key "s3cr3tValue";')
@example("password" * 6 + ': "hunter2Xy9!"')
@example("'hunter2Xy9!' == db_password")
def test_the_keyword_detector_finds_what_its_own_analyze_line_finds(line: str) -> None:
    assert {v for _, v in detector.keyword_values(line)} == _library_keyword_values(line)


_SPACED = st.sampled_from(["api_key", "aws", "key", ":", "=", '"', " " * 30, " " * 22, " ", "x"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_SPACED, max_size=8).map("".join),
    st.sampled_from(["A1b2C3d4" * 7, '"' + "A1b2C3d4" * 5 + '"', "a" * 44]),
)
def test_shorter_runs_of_spaces_change_no_plugin_answer(head: str, tail: str) -> None:
    line = head + tail
    short = detector._fewer_spaces(line)
    assert " " * (detector._SPACES + 1) not in short
    for plugin in _plugins().values():
        assert sorted(plugin.analyze_string(short)) == sorted(plugin.analyze_string(line))


@pytest.mark.parametrize(
    "text", ["", "a", "a\n", "a\r\nb\rc\x0bd\x0ce\x1cf\x1dg\x1eh\x85i\u2028j\u2029k", "\n\n x \n"]
)
def test_lines_are_where_splitlines_cuts(text: str) -> None:
    assert [text[a:b] for a, b in detector._lines(text)] == text.splitlines()


@pytest.mark.parametrize("size", [0, 1, detector.WINDOW, detector.WINDOW + 1, 10 * detector.WINDOW])
@pytest.mark.parametrize("unit", ["x", "ab ", "pwd: s3cr3tValue! ", "\u3000y"])
def test_windows_cover_every_overlap_long_stretch_and_stay_linear(size: int, unit: str) -> None:
    line = (unit * (size // len(unit) + 1))[:size]
    cuts = list(detector.windows(line))
    assert cuts[0][0] == 0 and cuts[-1][1] == len(line)
    assert all(0 < end - start <= detector.WINDOW for start, end in cuts if line)
    for (_, end), (start, _) in itertools.pairwise(cuts):
        assert start <= end - detector.OVERLAP  # any OVERLAP characters lie whole in one window
    # Each character is read at most twice, and a little more where cuts move to a space.
    assert sum(end - start for start, end in cuts) <= 2 * len(line) + detector.WINDOW
    if " " in unit and len(cuts) > 1:  # a cut near a space falls at one
        assert all(line[end].isspace() for _, end in cuts[:-1])
        assert all(line[start - 1].isspace() for start, _ in cuts[1:])


def test_the_library_patterns_named_here_are_its_own() -> None:
    from detect_secrets.plugins import keyword

    patterns = detector._keyword_patterns()
    assert len(patterns) == 4
    held = [p for p, _, term, _ in patterns if term is not None]
    assert len(held) == 3 and all(r"\w*+" in p.pattern for p in held)
    assert re.compile(detector._KEYWORD_HINT).search("|".join(keyword.DENYLIST))
