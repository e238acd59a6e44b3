"""The prefilter's shortcuts never change its answer.

``prefilter`` skips a format's regex when the text has no run of ``[A-Za-z0-9+/_-]`` as long
as any match of the format holds (``_MIN_RUN``), and the entropy check when it has no run of 32.
These tests check each bound against generated matches of the patterns themselves, and the
whole prefilter against the plain form it replaced (every regex run whenever its literal is
present) on generated texts and on the corpus of fake secrets.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memsite.core import detector, secrets
from memsite.core import prefilter as patterns
from memsite.core.prefilter import (
    _ASSIGNMENT,
    _KEYWORDS,
    _MIN_RUN,
    _RUN,
    _SHAPES,
    _SRI,
    _URL_CREDENTIALS,
    ENTROPY_LIMIT,
    _prefilter,
    credential_like,
    entropy_runs,
    high_entropy,
    longest_run,
    placeholder,
    prefilter,
)
from tests.secrets_corpus import FAKE_SECRETS, FakeSecret

_RUN_CLASS = re.compile(r"[A-Za-z0-9+/_-]+")


def _true_longest(text: str) -> int:
    return max((len(m) for m in _RUN_CLASS.findall(text)), default=0)


def _plain_high_entropy(run: str) -> bool:
    """``high_entropy`` as it was written first (a loop over the characters)."""
    if re.match(_SRI, run):
        return False
    value = run.rstrip("=")
    mixed = (
        any(c.islower() for c in value)
        and any(c.isupper() for c in value)
        and any(c.isdigit() for c in value)
    )
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return mixed and entropy >= ENTROPY_LIMIT


def _plain_prefilter(text: str) -> bool:
    """The prefilter without shortcuts: each format's regex whenever one of its literals is
    in the text, the entropy check for any text of 32 characters or more."""
    shapes = any(
        re.search(pattern, text)
        for _, needles, pattern in _SHAPES
        if any(n in text for n in needles)
    )
    if shapes or (
        "://" in text
        and any(not placeholder(m.group(1)) for m in re.finditer(_URL_CREDENTIALS, text))
    ):
        return True
    if (
        ("=" in text or ":" in text)
        and any(word in text.lower() for word in _KEYWORDS)
        and any(credential_like(m.group(1)) for m in re.finditer(_ASSIGNMENT, text))
    ):
        return True
    return len(text) >= 32 and any(entropy_runs(text))


# Pieces that make every branch of the prefilter likely: literals of the formats, separators,
# assignments, URLs, and base64-like characters.
_PIECES = [
    *{needle for _, needles, _ in _SHAPES for needle in needles},
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "hooks.slack.com/services/T",
    "/B",
    "https://user:",
    "@example.com",
    "password = ",
    "token: ",
    "api_key=",
    "sha256:",
    "ssh-ed25519 ",
    " ",
    "\n",
    "é",
    "漢",
    "=",
    ".",
    ":",
    "/",
    "_",
    "-",
]
_ALNUM = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-", max_size=60)
_TEXTS = st.lists(st.one_of(st.sampled_from(_PIECES), _ALNUM), max_size=14).map("".join)


@pytest.mark.parametrize("kind", sorted(_MIN_RUN))
def test_every_format_has_a_bound(kind: str) -> None:
    assert kind in {k for k, _, _ in _SHAPES}


@pytest.mark.parametrize("shape", _SHAPES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(_SHAPES)])
@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_match_holds_the_run_its_format_is_skipped_without(
    shape: tuple[str, tuple[str, ...], str], data: st.DataObject
) -> None:
    kind, _, pattern = shape
    # Lookbehinds cannot be generated from: the pattern's body stands for it (same bound).
    body = re.sub(r"\(\?:\(\?<=[^)]*\)\|\^\)|\(\?=[^)]*\|\$\)", "", pattern)
    text = data.draw(st.from_regex(body, fullmatch=True))
    for m in re.finditer(pattern, text):
        assert _true_longest(m.group()) >= _MIN_RUN[kind]


@settings(max_examples=300)
@given(st.from_regex(_RUN, fullmatch=True))
def test_an_entropy_candidate_is_a_run_of_32(run: str) -> None:
    assert _true_longest(run) >= 32


@settings(max_examples=500)
@given(_TEXTS)
@example("x" * 40)
@example("tok eyJabcdefgh.eyJabcdefgh.abcdefghij")
def test_longest_run_never_undercounts(text: str) -> None:
    assert longest_run(text) >= _true_longest(text)


@settings(max_examples=500)
@given(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=", min_size=1))
def test_high_entropy_is_the_plain_check(run: str) -> None:
    assert high_entropy(run) == _plain_high_entropy(run)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS)
@example("ghp_" + "A1b2" * 10)
@example("see 12345678:" + "A" * 35)
@example("M" + "a" * 23 + ".abcdef." + "b" * 27)
def test_the_prefilter_answers_as_the_plain_one(text: str) -> None:
    assert _prefilter(text) == _plain_prefilter(text)
    assert prefilter(text) == _plain_prefilter(text)


@pytest.mark.parametrize("secret", FAKE_SECRETS, ids=[s.name for s in FAKE_SECRETS])
def test_the_corpus_answers_as_the_plain_one(secret: FakeSecret) -> None:
    assert _prefilter(secret.fact) is _plain_prefilter(secret.fact) is True
    for text in filter(None, (secret.value, secret.name_form)):
        assert _prefilter(text) == _plain_prefilter(text)


def test_short_answers_are_remembered_without_changing_them() -> None:
    text = "ghp_" + "Ab1" * 12
    assert len(text) <= patterns._SHORT
    assert prefilter(text) is prefilter(text) is _plain_prefilter(text) is True
    assert prefilter("deploy-notes") is _plain_prefilter("deploy-notes") is False


# --- the keyword detector's hint --------------------------------------------------------------


def _keyword_patterns() -> list[re.Pattern[str]]:
    from detect_secrets.plugins import keyword

    return [v for v in vars(keyword).values() if isinstance(v, re.Pattern)]


def test_every_keyword_pattern_needs_a_denylist_term_the_hint_finds() -> None:
    from detect_secrets.plugins import keyword

    hint = re.compile(detector._KEYWORD_HINT)
    patterns = _keyword_patterns()
    assert len(patterns) >= 8
    for pattern in patterns:
        # (with or without IGNORECASE: a pattern that heeds case only matches less)
        assert "|".join(keyword.DENYLIST) in pattern.pattern, pattern.pattern
    for term in keyword.DENYLIST:
        for spelled in {term.replace("_?", "_"), term.replace("_?", "")}:
            assert hint.search(spelled) and hint.search(spelled.upper()), term


_WORDS = "password PassWd pwd api_key ApiKey secret contraseña token hunter2Xy9! s3cr3tValue"
_LINE_PIECES = st.sampled_from(
    [*_WORDS.split(), *"= : := \" ' db _ ey pas wd x \u212a \u017f \u0131".split(), " "]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE_PIECES, max_size=12).map("".join))
def test_a_line_without_the_hint_gives_the_keyword_detector_nothing(line: str) -> None:
    _, keyword, snippet = detector._library()
    context = snippet([line], 1)
    found = list(
        keyword.analyze_line(filename="memsite.yaml", line=line, line_number=1, context=context)
    )
    if not re.search(detector._KEYWORD_HINT, line):
        assert found == []


def _denylist_spellings() -> list[str]:
    from detect_secrets.plugins import keyword

    return sorted(
        {
            spelled
            for t in keyword.DENYLIST
            for spelled in (t.replace("_?", "_"), t.replace("_?", ""))
        }
    )


@pytest.mark.parametrize("name", _denylist_spellings())
def test_the_prefilter_passes_each_assignment_the_keyword_detector_finds(name: str) -> None:
    # A name the full scan flags ("pwd", "contraseña", "service_key"…) that the prefilter
    # let by would be published by every view while `review` reports it.
    for line in (f"The staging DB {name}: s3cr3tValue!", f"{name.upper()} = 's3cr3tValue!'"):
        assert secrets.scan(line, full=True), line
        assert prefilter(line), line
        assert _prefilter(line) == _plain_prefilter(line)


_ANCHORED_PIECES = st.sampled_from(
    ["token", "pwd", "Api-Key", "eyJ", "eyJabcdefgh", ".", "-", "_", "=", ":", "'", '"', " ", "a1"]
)


@settings(max_examples=500)
@given(st.lists(_ANCHORED_PIECES, max_size=16).map("".join))
@example("token" * 20 + "=")
@example("eyJ-" * 8 + "eyJabcdefgh.eyJabcdefgh.abcdefghij")
def test_anchored_finds_what_finditer_finds(text: str) -> None:
    expected = [(m.span(), m.groups()) for m in re.finditer(_ASSIGNMENT, text)]
    assert [(m.span(), m.groups()) for m in patterns.assignments(text)] == expected
    kind, _, jwt = next(shape for shape in _SHAPES if shape[0] == "json-web-token")
    anchor, run = patterns._SKIPS[kind]
    found = [m.span() for m in patterns.anchored(anchor, jwt, run, text)]
    assert found == [m.span() for m in re.finditer(jwt, text)]
