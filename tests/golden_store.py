"""A seeded store that exercises every rule, for the golden-output guard (``test_golden``).

About 500 entries from ``benchmarks/gen_store.py`` (supersession chains, merges, keys and
contradictions, exact duplicates), plus, written as other tools or branches would write them:
anchored facts (one whose file changed since, one whose file is gone, one whose lines moved),
verify, retire and relate records (distinct-from, conflicts-with, refines), facts that
possibly conflict, near duplicates, a suspected secret, an allowed one, a fact dated in the
future, one in a category the config does not list, unreadable files, and daily logs of two
sessions. Every id, time and byte is fixed: the same store on every run.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

from memsite.core.anchors import make_anchor

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from gen_store import build_entries, file_name

ENTRIES = 500
SEED = 7
NOW = "2026-12-01T12:00:00+00:00"  # the clock every golden command runs with
CONFIG = {
    "memory": {
        "reviewAfterDays": {"operations": 700},
        "categories": {"conventions": 2, "architecture": 1, "operations": 1, "decisions": 1},
    },
    "site": {"site_name": "Golden memory", "site_description": "The golden-output store"},
}
PROJECT_FILES = {
    "src/db.py": "import os\n\nDATABASE_URL = os.environ['DATABASE_URL']\nPOOL = 10\n",
    "src/api.py": "def handler(event):\n    return {'ok': True}\n",
    "src/moved.py": "# header\n\ndef retry(times):\n    return times * 2\n",
    "docs/old.md": "# Old notes\n\nNothing here.\n",
}
# What the project's files say after the facts were anchored to them (drift).
LATER_FILES = {
    "src/api.py": "def handler(event, context):\n    return {'ok': False}\n",
    "src/moved.py": "# header\n# a new first comment\n# another\n\ndef retry(times):\n"
    "    return times * 2\n",
}
GONE_FILES = ("docs/old.md",)


def _id(n: int) -> str:
    return str(uuid.UUID(int=0xC0FFEE << 64 | n, version=4))


def _entry(n: int, category: str, content: str, created: str, **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "id": _id(n),
        "category": category,
        "content": content,
        "created": created,
        "agent": extra.pop("agent", "golden"),
        "tags": extra.pop("tags", []),
        "supersedes": extra.pop("supersedes", None),
        "confidence": extra.pop("confidence", "medium"),
    }
    obj.update(extra)
    return obj


def _record(n: int, kind: str, target: str, created: str, **extra: Any) -> dict[str, Any]:
    return {"record": kind, "id": _id(n), "target": target, "created": created, **extra}


def _anchor(path: str, lines: tuple[int, int] | None = None) -> dict[str, Any]:
    return make_anchor(path, PROJECT_FILES[path].encode(), lines).as_dict()


def extra_entries() -> list[dict[str, Any]]:
    """The hand-made entries and records (see the module docstring)."""
    ops, arch, conv = "operations", "architecture", "conventions"
    return [
        _entry(
            1,
            ops,
            "The database URL is read from DATABASE_URL in src/db.py.",
            "2025-11-02T09:00:00.000Z",
            anchors=[_anchor("src/db.py", (3, 3))],
            tags=["database"],
        ),
        _entry(
            2,
            arch,
            "The API handler returns {'ok': True} for every event.",
            "2025-11-03T09:00:00.000Z",
            anchors=[_anchor("src/api.py")],
        ),
        _entry(
            3,
            arch,
            "The retry helper doubles the number of attempts.",
            "2025-11-04T09:00:00.000Z",
            anchors=[_anchor("src/moved.py", (3, 4))],
        ),
        _entry(
            4,
            conv,
            "Old notes live in docs/old.md and are not maintained.",
            "2025-11-05T09:00:00.000Z",
            anchors=[_anchor("docs/old.md")],
        ),
        _entry(
            5,
            ops,
            "The production database is Postgres 15.",
            "2025-06-01T08:00:00.000Z",
            tags=["postgres"],
        ),
        _entry(
            6,
            ops,
            "The production database is Postgres 16.",
            "2025-07-01T08:00:00.000Z",
            tags=["postgres"],
        ),
        _entry(
            7,
            ops,
            "The production database is Postgres 17.",
            "2025-08-01T08:00:00.000Z",
            tags=["postgres"],
        ),
        _entry(
            8,
            arch,
            "API tokens are JWTs signed with HS256 using the shared secret from the vault.",
            "2025-09-01T08:00:00.000Z",
            tags=["auth"],
        ),
        _entry(
            9,
            arch,
            "API tokens are JWTs signed with RS256; the public key is served at /jwks.",
            "2025-09-02T08:00:00.000Z",
            tags=["auth"],
        ),
        _entry(
            10,
            ops,
            "Deploy with the AWS key AKIAQYLPMN5HHHFPZAM2 from the shared account.",
            "2025-10-01T08:00:00.000Z",
            tags=["deploy"],
        ),
        _entry(
            11,
            ops,
            "The staging build id is 9fJk2LmQ8xR4vT7wZ1bN6cH3sD0gY5pK for the demo.",
            "2025-10-02T08:00:00.000Z",
            allow_secret=True,
        ),
        _entry(12, conv, "Commit messages use the imperative mood.", "2031-01-01T00:00:00.000Z"),
        _entry(
            13, "security", "Rotate the signing keys every 90 days.", "2025-10-03T08:00:00.000Z"
        ),
        _entry(
            14,
            conv,
            "Use `ruff format` before every commit; see https://docs.astral.sh/ruff/.",
            "2025-10-04T08:00:00.000Z",
            key="formatter",
            confidence="high",
        ),
        _entry(
            15,
            conv,
            "Use black before every commit.",
            "2025-01-04T08:00:00.000Z",
            key="formatter",
            confidence="low",
        ),
        _entry(
            16,
            arch,
            "Payments go through the <b>gateway</b> service & never call Stripe directly.",
            "2025-10-05T08:00:00.000Z",
            reason="clarified",
            tags=["payments"],
        ),
        _entry(
            17, ops, "Retired: the nightly export runs at 02:00 UTC.", "2025-03-05T08:00:00.000Z"
        ),
        _entry(
            18,
            conv,
            "Always use pnpm, never npm or yarn.",
            "2025-10-06T08:00:00.000Z",
            tags=["pnpm", "tooling"],
        ),
        _entry(19, conv, "Use pnpm, never npm or yarn", "2025-10-07T08:00:00.000Z"),
        _record(
            101,
            "verify",
            _id(1),
            "2026-11-20T10:00:00.000Z",
            agent="golden",
            evidence="checked src/db.py",
        ),
        _record(
            102,
            "retire",
            _id(17),
            "2026-11-21T10:00:00.000Z",
            agent="golden",
            reason="the export moved to a queue",
        ),
        _record(
            103,
            "relate",
            _id(5),
            "2026-11-22T10:00:00.000Z",
            agent="golden",
            other=_id(6),
            type="distinct-from",
            reason="different clusters",
        ),
        _record(
            104,
            "relate",
            _id(8),
            "2026-11-22T11:00:00.000Z",
            agent="golden",
            other=_id(9),
            type="conflicts-with",
        ),
        _record(
            105,
            "relate",
            _id(14),
            "2026-11-22T12:00:00.000Z",
            agent="golden",
            other=_id(16),
            type="refines",
        ),
    ]


DAILY = {
    "2026-11-28-golden-a.md": "# Daily log 2026-11-28 (golden-a)\n\n"
    "- 09:00:00Z [task] migrate the invoice worker to the queue\n"
    "- 09:30:00Z [decision] keep Postgres 17 for the ledger\n"
    "- 10:00:00Z the deploy pipeline took 12 minutes\n",
    "2026-11-30-golden-b.md": "# Daily log 2026-11-30 (golden-b)\n\n"
    "- 14:00:00Z [task] write the runbook for payouts\n"
    "- 15:00:00Z [done] write the runbook for payouts\n"
    "- 15:30:00Z [task] look at the flaky checkout test\n",
}
INVALID = {
    "2025-12-01T00-00-00Z-deadbeef.json": b"{ not json",
    "2025-12-02T00-00-00Z-cafebabe.json": json.dumps({"id": _id(999), "content": "x"}).encode(),
}


def make_store(project: Path) -> Path:
    """Write the golden project (its files and its .memsite/) into ``project``."""
    store = project / ".memsite"
    entries = store / "entries"
    entries.mkdir(parents=True)
    (store / "daily").mkdir()
    (store / "compacted").mkdir()
    (store / "config.json").write_text(json.dumps(CONFIG, indent=2) + "\n", encoding="utf-8")
    for rel, text in PROJECT_FILES.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
    objects = build_entries(ENTRIES, SEED) + extra_entries()
    for obj in objects:
        name = file_name(obj)
        (entries / name).write_text(
            json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    for name, data in INVALID.items():
        (entries / name).write_bytes(data)
    for name, text in DAILY.items():
        (store / "daily" / name).write_text(text, encoding="utf-8")
    for rel, text in LATER_FILES.items():
        (project / rel).write_text(text, encoding="utf-8")
    for rel in GONE_FILES:
        (project / rel).unlink()
    return store
