"""Scanning a text for secrets takes time linear in it. One 1 MiB entry file of
``'token' * 199000 + '='`` made `list`, `context`, `compact` and `review` each run past 120 s
(issue 30, item 4): the assignment pattern retried from every ``token`` and read the rest of
the text from each, and detect-secrets' own patterns do the same on one long line. Linear work
takes well under a second a MiB; the deadlines here are ten and more times that, and
quadratic work took minutes.

Long lines reach detect-secrets in overlapping windows: a secret across a cut is still found.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from memsite.core import detector
from memsite.core.entry import MAX_ENTRY_BYTES
from memsite.core.secrets import prefilter, redact, scan
from tests.conftest import clean_env, make_entry, write_raw
from tests.secrets_corpus import FAKE_SECRETS, FakeSecret

MIB = 1 << 20

# Each took one scanner past the deadline on 1 MiB (minutes, most of them): a pattern started
# at every unit and read on to the end of the text or line.
SHAPES = {
    "token-then-equals": "('token' * 209_715) + '='",  # the assignment pattern, from each token
    "jwt-starts": "'eyJ-' * (MIB // 4)",  # the JWT patterns, from each eyJ
    "password-run": "'password' * (MIB // 8)",  # the keyword detector's, from each password
    "slashes": "'/' * MIB",  # npm's, from each //
    "key-then-spaces": "'api_key' + ' ' * MIB + '!'",  # IBM Cloud's, cubic in the spaces
    "openai-starts": "'sk-ant-' * (MIB // 7)",  # OpenAI's, from each sk-
    # one value found 50,000 times, each time looked for over the whole text
    "aws-prefixes": "'AKIA' * (MIB // 4)",
    "repeated-assignments": "'pwd: s3cr3tValue!\\n' * (MIB // 18)",
    # 50,000 distinct values, each looked for over the whole text
    "distinct-keys": "''.join(f'AKIA{i:016X}\\n' for i in range(MIB // 21))",
    # 35,000 passwords only the library finds (and redacts wherever it finds them)
    "distinct-passwords": "''.join(f'password = s3cr3t{i:06d}Value!\\n' for i in range(MIB // 30))",
}
SCANNERS = {
    "prefilter": "prefilter(text)",
    "redact": "redact(text)",
    "full-scan": "scan(text, full=True)",
}
CASES = [
    ("token-then-equals", "prefilter"),
    ("token-then-equals", "redact"),
    ("jwt-starts", "prefilter"),
    ("jwt-starts", "redact"),
    ("jwt-starts", "full-scan"),
    ("password-run", "full-scan"),
    ("slashes", "full-scan"),
    ("key-then-spaces", "full-scan"),
    ("openai-starts", "redact"),
    ("aws-prefixes", "full-scan"),
    ("repeated-assignments", "full-scan"),
    ("distinct-keys", "redact"),
    ("distinct-keys", "full-scan"),
    ("distinct-passwords", "full-scan"),
]
DEADLINE = 20  # seconds for 1 MiB; linear scanning takes a second or two


def within_deadline(shape: str, call: str) -> str:
    """What a child process prints after ``call`` on the 1 MiB ``text`` of ``shape``."""
    # A child: a regex cannot be interrupted, and a quadratic one runs for minutes.
    code = (
        "from memsite.core.secrets import prefilter, redact, scan\n"
        f"MIB = {MIB}\ntext = {SHAPES[shape]}\nprint(len(text), {call})"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=DEADLINE
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{call} of 1 MiB shaped {shape} took over {DEADLINE} s")
    assert done.returncode == 0, done.stderr
    size, answer = done.stdout.split(maxsplit=1)
    assert int(size) >= MIB - 32
    return answer.strip()


@pytest.mark.parametrize(("shape", "scanner"), CASES)
def test_a_mib_of_a_worst_case_shape_is_scanned_in_linear_time(shape: str, scanner: str) -> None:
    within_deadline(shape, f"bool({SCANNERS[scanner]})")


def test_each_of_many_distinct_secrets_is_redacted() -> None:
    # Past the budget for looking each value up over the whole text, each is still redacted
    # where it was found.
    shown = "redact(text, full=True)"
    counted = f"{shown}.count('[redacted: secret-keyword]'), 's3cr3t' in {shown}"
    assert within_deadline("distinct-passwords", counted) == f"{MIB // 30} False"


CLI_DEADLINE = 60  # seconds for list, context, compact and review together


def test_commands_over_a_mib_entry_finish(store_root: Path) -> None:
    entry = make_entry("placeholder", "operations", id=str(uuid.uuid4()))
    entry["content"] = "token" * 199_000 + "="  # past the write limit: a file another tool wrote
    path = write_raw(store_root, entry)
    assert MIB * 0.9 < path.stat().st_size <= MAX_ENTRY_BYTES
    start = time.monotonic()
    outputs = {}
    for args in (["list", "--json"], ["context"], ["compact", "--quiet"], ["review", "--json"]):
        left = CLI_DEADLINE - (time.monotonic() - start)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "memsite", "--store", str(store_root), *args],
                capture_output=True,
                text=True,
                env=clean_env(),
                timeout=max(left, 1),
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"`memsite {args[0]}` over a 1 MiB entry passed the {CLI_DEADLINE} s")
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr
        outputs[args[0]] = done.stdout
    assert str(entry["id"]) in outputs["list"]
    assert "findings" in json.loads(outputs["review"])


# --- windows ------------------------------------------------------------------------------


ONE_LINE = [s for s in FAKE_SECRETS if "\n" not in s.fact]


def across_the_first_cut(fact: str) -> tuple[str, int]:
    """A line longer than a window with ``fact`` where its first window ends (the cut must
    fall inside it), and where ``fact`` starts."""
    start = detector.WINDOW - min(40, len(fact) // 2)
    line = "x" * (start - 1) + "," + fact + " " + "lorem ipsum " * (detector.WINDOW // 6)
    cut = next(iter(detector.windows(line)))[1]
    assert start < cut < start + len(fact), "the cut must fall inside the fact"
    return line, start


@pytest.mark.parametrize("secret", ONE_LINE, ids=[s.name for s in ONE_LINE])
def test_a_secret_across_a_window_cut_is_found(secret: FakeSecret) -> None:
    line, start = across_the_first_cut(secret.fact)
    assert prefilter(line)
    at = line.index(secret.value, start)
    hits = scan(line, full=True)
    assert any(h.start <= at and at + len(secret.value) <= h.end for h in hits), hits
    for text in (redact(line), redact(line, full=True)):
        assert secret.value not in text


def test_a_library_only_format_across_a_cut_with_no_space_near_is_found() -> None:
    # Square's OAuth secrets are found by detect-secrets alone; in a run with no space to cut
    # at, the window ends inside the token and the next one holds it whole.
    token = "sq0csp-Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kL9nP2r"
    line = "x" * (detector.WINDOW - 20) + token + "x" * detector.WINDOW
    assert next(iter(detector.windows(line)))[1] == detector.WINDOW
    hits = scan(line, full=True)
    at = line.index(token)
    assert [(h.kind, h.start, h.end) for h in hits if h.start <= at < h.end] == [
        ("square-oauth-secret", at, at + len(token))
    ]
