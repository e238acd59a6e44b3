"""The portal's data model: redaction in one place, slugs, history closures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.core.entry import entry_from_object
from memsite.core.secrets import redact
from memsite.core.text import map_strings
from memsite.errors import MemsiteError
from memsite.memory import Memory
from memsite.portal.cache import PortalCache
from memsite.portal.derive import build_portal, full_scan_changes, secret_ids
from memsite.portal.model import slug
from memsite.portal.redact import Redactor
from tests.portal.conftest import build, copy_demo, plant

GITHUB = "ghp_" + "A1b2C3d4E5" * 4
AWS = "AKIAIOSFODNN7EXAMPLE"
TWILIO = "SK" + "0123456789abcdef" * 2  # only the full detect-secrets scan sees this one


def site_text(site: Path) -> str:
    return "\n".join(
        p.read_text(errors="replace") for p in site.rglob("*") if p.is_file() and p.suffix != ".gz"
    )


def test_secrets_never_reach_the_site(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    plant(store, content=f"CI uses {GITHUB} to push", tags=["ci"], agent=f"bot {AWS}")
    plant(store, content="Deploy key rotation", key="deploy", reason=f"old one was {AWS}")
    plant(store, content=f"SMS through Twilio with {TWILIO} in prod")
    built = build(store)
    text = site_text(built.site)
    for secret in (GITHUB, AWS, TWILIO):
        assert secret not in text
    assert "[redacted: github-token]" in text
    assert text.count("[redacted: ") >= 4
    review = (built.site / "review" / "index.html").read_text()
    assert "Secret (" in review


def test_allowed_false_positives_stay(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    plant(store, content=f"Example key from the AWS docs: {AWS}", allow_secret=True)
    built = build(store)
    assert AWS in site_text(built.site / "entries")


@pytest.mark.parametrize("text", [f"key {TWILIO}", f"token {GITHUB}", "nothing secret"])
def test_redactor_is_secrets_redact_remembered(text: str) -> None:
    redactor = Redactor()
    assert redactor.text(text) == redact(text)
    assert redactor.text(text, full=True) == redact(text, full=True)
    assert redactor.text(text) is redactor.text(text)  # scanned once
    assert redactor.value({"a": [text, 1, None]}, True) == {"a": [redact(text, full=True), 1, None]}


def test_entries_with_full_scan_findings_are_redacted_with_it(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    obj = plant(store, content=f"SMS through Twilio with {TWILIO}", key="sms")
    built = build(store)
    entry = built.memory.state().result.by_id[obj["id"]]
    assert Redactor(full_ids={entry.id})(entry).content == redact(entry.content, full=True)
    assert Redactor()(entry).content == redact(entry.content)
    findings = built.memory.findings()
    assert entry.id in secret_ids(findings)


def test_a_secret_only_the_full_scan_sees_is_redacted_on_every_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build redacts with the quick scan, then (once the review's full scan is in) again
    with the full one wherever that changes something: here a gap is opened in the quick
    scan, so only the full one sees the token."""
    from memsite.core import secrets

    quick = secrets.prefilter
    monkeypatch.setattr(secrets, "prefilter", lambda text: TWILIO not in text and quick(text))
    store = copy_demo(tmp_path)
    obj = plant(store, content=f"SMS through Twilio with {TWILIO} in prod", tags=["sms"])
    built = build(store)
    entry = built.memory.state().result.by_id[obj["id"]]
    assert Redactor()(entry).content == entry.content  # the quick scan lets it through
    assert TWILIO not in site_text(built.site)
    page = (built.site / "entries" / obj["id"] / "index.html").read_text()
    assert "[redacted: twilio-api-key]" in page


def test_full_scan_changes_only_when_the_redaction_differs(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    obj = plant(store, content=f"SMS through Twilio with {TWILIO}")
    memory = Memory.open(str(store), {}, store.parent)
    entries = memory.state().result.entries
    findings = memory.findings()
    assert obj["id"] in secret_ids(findings)
    # The quick scan already redacts the token: redacting again would change nothing.
    assert not full_scan_changes(PortalCache(), entries, findings)
    gap = PortalCache(Redactor())
    gap.redactor.text = lambda value, full=False: (  # type: ignore[method-assign]
        redact(value, full=True) if full else value
    )
    assert full_scan_changes(gap, entries, findings)
    assert not full_scan_changes(gap, entries, [])


@pytest.mark.parametrize(
    ("name", "expected"),
    [("conventions", "conventions"), ("a.b_c-d", "a.b_c-d"), ("../x", None), ("<b>", None)],
)
def test_slug(name: str, expected: str | None) -> None:
    value = slug(name)
    if expected is not None:
        assert value == expected
    else:
        assert value.startswith("_") and len(value) == 13 and "/" not in value
        assert slug(name) == value  # stable


def test_history_closures_are_transitive(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    a = plant(store, content="v1", created="2026-01-01T00:00:00.000Z")
    b = plant(store, content="v2", supersedes=a["id"], created="2026-01-02T00:00:00.000Z")
    c = plant(
        store, content="v3", supersedes=[b["id"]], reason="why", created="2026-01-03T00:00:00.000Z"
    )
    built = build(store)
    state = built.memory.state()
    portal = build_portal(state.result, {}, {"conventions": 1}, 1000)
    page_a = portal.page(a["id"])
    assert [e.id for e in page_a.newer] == [c["id"], b["id"]]
    assert [e.id for e in page_a.replaced_by] == [b["id"]]
    assert [e.id for e in page_a.current] == [c["id"]]
    page_c = portal.page(c["id"])
    assert [e.id for e in page_c.older] == [b["id"], a["id"]]
    assert page_c.entry.reason == "why"
    html = (built.site / "entries" / a["id"] / "index.html").read_text()
    assert f"../{c['id']}/" in html and "Reason: why" in html


def test_lunr_loads_without_nltk() -> None:
    code = (
        "import sys\n"
        "from memsite.portal.searchdata import import_lunr\n"
        "import_lunr()\n"
        "print('lunr' in sys.modules, 'nltk' in sys.modules, 'scipy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False", "False"]


SECRETISH = st.sampled_from([GITHUB, AWS, TWILIO, "password = hunter2Xy9", "", "plain words"])
TEXTS = st.one_of(st.text(max_size=40), SECRETISH, st.tuples(st.text(max_size=10), SECRETISH))


def _text(value: object) -> str:
    return "".join(value) if isinstance(value, tuple) else str(value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    content=TEXTS.map(_text).filter(lambda t: t.strip() != ""),
    tags=st.lists(st.from_regex(r"[a-z0-9][a-z0-9._-]{0,8}", fullmatch=True), max_size=3),
    agent=st.one_of(st.none(), TEXTS.map(_text)),
    extra=st.dictionaries(TEXTS.map(_text), st.one_of(TEXTS.map(_text), st.integers()), max_size=2),
)
def test_the_quick_redaction_of_an_entry_redacts_every_string(
    content: str, tags: list[str], agent: str | None, extra: dict[str, object]
) -> None:
    """Entries the quick scan cannot suspect come back as they are; the others with each
    string redacted: either way, what redacting each string on its own gives."""
    obj = {
        "id": "0f8c5a52-6c1e-4c55-9b7a-2f0d6b1e9c3d",
        "category": "conventions",
        "content": content,
        "created": "2026-05-01T10:00:00.000Z",
        "agent": agent,
        "tags": tags,
        "supersedes": None,
        "confidence": "medium",
        **{k: v for k, v in extra.items() if k not in ("id", "created", "category")},
    }
    try:
        entry = entry_from_object(obj, "x.json")
    except MemsiteError:
        return  # not an entry reading would accept
    out = Redactor().redact(entry, False)
    assert out.content == redact(entry.content)
    assert out.tags == tuple(redact(t) for t in entry.tags)
    assert out.agent == (None if entry.agent is None else redact(entry.agent))
    assert out.raw == map_strings(dict(entry.raw), redact)
