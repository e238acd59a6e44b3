# ruff: noqa: E501 -- the corpora keep real-world line lengths (index bullets are often >100 chars)
"""estimate_tokens never under-counts the real OpenAI tokenizers, and is not uselessly pessimistic.

The reference counts come from the offline ``bpe-openai`` package (a tiktoken-compatible wrapper
around a Rust BPE), for both ``cl100k_base`` and ``o200k_base``. The corpora below are written to
look like what memsite puts in front of an agent: prose, code, Markdown bullets, several scripts,
emoji, identifiers. Every sample is checked as a whole and line by line, because the index is
budgeted bullet by bullet.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import bpe_openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.core.estimate import estimate_tokens
from tests.oracles import fits

ENCODINGS = ("cl100k_base", "o200k_base")


@functools.cache
def _encoding(name: str) -> Any:
    return bpe_openai.get_encoding(name)


def real_tokens(text: str, encoding: str) -> int:
    # encode_ordinary: text such as "<|endoftext|>" is counted as text, not as a special token
    return len(_encoding(encoding).encode_ordinary(text))


def worst_real_tokens(text: str) -> int:
    return max(real_tokens(text, encoding) for encoding in ENCODINGS)


# --- corpora -----------------------------------------------------------------------------------

ENGLISH_PROSE = """\
The team decided to keep the project memory in the repository itself, next to the code it
describes. Every agent that opens a session reads a short index first, and only then pulls in the
entries that look relevant to the task at hand. This keeps the context small, which matters more
than it seems: a model that is handed ten thousand tokens of stale notes will happily follow the
oldest and least accurate of them.

When a developer corrects an agent, the correction should become a memory entry within the same
session. The entry records what was wrong, what the right behaviour is, and why. Without the why,
the next agent tends to treat the rule as arbitrary and drops it as soon as it conflicts with a
more familiar habit. With it, the agent can judge whether the rule still applies after the code
has moved on.

We review the memory once a week. Entries that have not been read in a month are marked as
candidates for removal, and anything contradicted by the current code is either rewritten or
deleted. Nobody enjoys this chore, but skipping it for a quarter left us with an index that was
mostly noise, and the agents started ignoring it altogether. A small, accurate memory beats a
large, comprehensive one every single time.

Performance budgets are written down as numbers, not adjectives. "Fast enough" meant something
different to each person on the team until we agreed that the test suite must finish in under
ninety seconds on a laptop, that the site must build in under five seconds for a thousand
entries, and that the search index must stay below two megabytes. Once those limits were in the
documentation, arguments about premature optimisation became rare and short.

Security reviews happen before any release that touches authentication, file handling, or the
network. The reviewer reads the diff, runs the scanner, and writes a short note explaining what
was checked and what was deliberately left out of scope. It's tempting to skip the note when the
change is tiny; don't. The note is what lets the next reviewer trust that the gap wasn't missed.

Onboarding a new contributor used to take a full week. Now they clone the repository, run a single
command to install the hooks and dependencies, and read the index. By the afternoon they usually
have their first pull request open, and by the end of the week they've stopped asking which of the
three configuration files is the real one (it's pyproject.toml; the other two are historical).
"""

PYTHON_CODE = '''\
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

_SLUG_RE = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Entry:
    """One memory entry: a rule, a fact, or a decision with its rationale."""

    id: str
    title: str
    body: str
    tags: tuple[str, ...] = ()
    created: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return _SLUG_RE.sub("-", self.title.lower()).strip("-")[:60]


def load_entries(root: Path) -> list[Entry]:
    entries: list[Entry] = []
    for path in sorted(root.glob("entries/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "id" not in data:
            raise ValueError(f"{path}: not an entry (missing 'id')")
        entries.append(Entry(**{k: data[k] for k in ("id", "title", "body") if k in data}))
    return entries


class Index:
    def __init__(self, entries: list[Entry], budget: int = 8000) -> None:
        self._entries = entries
        self._budget = budget

    def render(self) -> str:
        lines = ["# Project memory", ""]
        for e in sorted(self._entries, key=lambda e: (e.created, e.id), reverse=True):
            lines.append(f"- {e.title} (tags: {', '.join(e.tags) or 'none'}) {e.id[:8]}")
        return "\\n".join(lines) + "\\n"

    def __len__(self) -> int:
        return len(self._entries)


if __name__ == "__main__":
    idx = Index(load_entries(Path.cwd() / ".memsite"))
    print(idx.render(), end="")
    assert len(idx) >= 0, "index length must be non-negative"
    x = [i ** 2 for i in range(10) if i % 3 != 0]
    y = {k: v for k, v in zip("abc", (1.5, -2e-3, 0x1F))}
    print(x, y, sep="\\t")
'''

JAVASCRIPT_CODE = """\
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";

const DEFAULT_BUDGET = 8_000;

export async function loadIndex(root = process.cwd()) {
  const file = path.join(root, ".memsite", "index.md");
  try {
    const text = await readFile(file, "utf8");
    return text.split(/\\r?\\n/).filter((line) => line.startsWith("- "));
  } catch (err) {
    if (err?.code === "ENOENT") return [];
    throw err;
  }
}

export class MemoryClient {
  #entries = new Map();
  constructor({ budget = DEFAULT_BUDGET, verbose = false } = {}) {
    this.budget = budget;
    this.verbose = verbose;
  }

  add(id, { title, tags = [] }) {
    if (!/^[0-9a-f]{8}$/.test(id)) throw new TypeError(`bad id: ${id}`);
    this.#entries.set(id, { title, tags, at: Date.now() });
    return this;
  }

  toJSON() {
    return [...this.#entries].map(([id, e]) => ({ id, ...e }));
  }
}

const client = new MemoryClient({ verbose: true });
client.add("a1b2c3d4", { title: "Use pnpm", tags: ["tooling"] })
      .add("deadbeef", { title: "Never force-push main" });
await writeFile("out.json", JSON.stringify(client, null, 2) + "\\n");
console.log(`wrote ${client.toJSON().length} entries`, { ok: true, ratio: 0.75 });
document.querySelectorAll("li > a[href^='#']").forEach((a) => a.classList.toggle("active"));
const sum = [1, 2, 3].reduce((acc, n) => acc + n, 0) ?? -1; // => 6
"""

SHELL_CODE = """\
#!/usr/bin/env bash
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

python -m pip install --quiet --upgrade pip
python -m pip install -e ".[test]" 2>&1 | tail -n 5

if ! command -v chromium >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y --no-install-recommends chromium
fi

export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
ruff check memsite tests
mypy --strict memsite
python -m pytest -q -x --maxfail=1 tests/ -k "not slow" | tee /tmp/pytest.log

for f in templates/*.md.j2; do
  [[ -s "$f" ]] || { echo "empty template: $f" >&2; exit 1; }
done

find . -name '*.pyc' -delete
grep -rn --include='*.py' 'TODO\\|FIXME' memsite | wc -l
tar -czf "dist/site-$(date +%Y%m%d).tar.gz" -C build/site . && ls -lh dist/
awk -F: '{ print $1 }' /etc/passwd | sort -u | head -3
curl -fsSL -H "Accept: application/json" "http://localhost:8000/api/v1/entries?limit=50" | jq '.[].id'
"""

JSON_CODE = """\
{
  "version": 3,
  "store": ".memsite",
  "budget": {"index_tokens": 8000, "entry_tokens": 400, "warn_ratio": 0.85},
  "entries": [
    {
      "id": "a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
      "title": "Always use pnpm, never npm",
      "tags": ["tooling", "node"],
      "created": "2026-03-07T09:14:22Z",
      "confidence": 0.92,
      "pinned": true,
      "supersedes": null
    },
    {
      "id": "f0e1d2c3-b4a5-4968-8776-655443322110",
      "title": "Run the test suite with -x before pushing",
      "tags": [],
      "created": "2026-02-28T17:03:00+01:00",
      "confidence": 1,
      "pinned": false,
      "links": {"issue": 142, "pr": [151, 153], "docs": "docs/testing.md#fast-path"}
    }
  ],
  "escapes": "tab\\there, quote \\" and unicode \\u00e9\\u4e2d",
  "nested": [[1, 2, [3, [4, {"deep": {"deeper": [true, false, null]}}]]]],
  "empty": {}
}
"""

MARKDOWN_DOC = """\
# memsite

**memsite** keeps one shared, git-native memory for the AI agents working on a project.

## Quick start

```bash
pip install memsite
memsite init && memsite add "Use `pnpm`, not `npm`" --tags tooling
```

Then point your agent at `.memsite/index.md`. The index is capped at **8,000 tokens**; see
[the budget docs](docs/budget.md#how-it-is-counted) for details.

| Command | What it does |
| --- | --- |
| `memsite add` | Adds an entry (title, body, tags). |
| `memsite gc --older-than 30d` | Flags stale entries for review. |
| `memsite site serve -p 8000` | Serves the portal on <http://127.0.0.1:8000/>. |

> **Note:** entries are plain Markdown with YAML front matter; edit them by hand if you like.

1. Install.
2. Run `memsite init`.
3. ~~Configure the cache~~ (no longer needed since v0.3).

```python
from memsite.core.estimate import estimate_tokens
assert estimate_tokens("hello") >= 1
```

- [x] index budget
- [ ] MCP server *(in progress)*
"""

CHINESE = """\
项目记忆应当与代码放在同一个仓库里，这样每次提交都能同时更新代码和相关的说明。
每个智能体在开始工作之前，先阅读简短的索引，然后只加载与当前任务相关的条目。
上下文越小越好：如果给模型塞进一万个过时的笔记，它往往会遵循其中最旧、最不准确的那一条。

当开发者纠正智能体时，这个纠正应该在同一次会话中成为一条记忆。条目要写清楚哪里错了、正确的做法是什么，以及为什么。
没有“为什么”，下一个智能体就会把规则当作随意的约定，一旦与熟悉的习惯冲突就会放弃它。

我们每周检查一次记忆库。一个月内没有被读取的条目会被标记为待删除；与当前代码矛盾的条目要么重写，要么删除。
性能预算用数字写下来，而不是形容词：测试必须在九十秒内完成，站点构建不超过五秒，搜索索引小于两兆字节。
安全审查在任何涉及认证、文件处理或网络的发布之前进行。审查者阅读差异、运行扫描器，并写一段简短的说明。
新成员入职过去需要整整一周；现在他们克隆仓库、运行一条命令、阅读索引，当天下午就能提交第一个合并请求。
罕见字测试：龘靐齉爩鱻麤貔貅饕餮魑魅魍魉，犇猋骉蟲麤毳淼焱垚㸚。
"""

JAPANESE = """\
プロジェクトの記憶は、それが説明するコードと同じリポジトリに置くことにしました。
エージェントはセッションを始めるときにまず短いインデックスを読み、作業に関係しそうな項目だけを読み込みます。
コンテキストは小さいほうがよいのです。古いメモを一万トークンも渡されたモデルは、最も古くて不正確なものに従いがちです。

開発者がエージェントの誤りを訂正したら、その訂正は同じセッションのうちに記憶の項目になるべきです。
項目には、何が間違っていたのか、正しい振る舞いは何か、そしてなぜそうなのかを書きます。
「なぜ」がないと、次のエージェントは規則を恣意的なものとみなし、慣れた習慣とぶつかった途端に捨ててしまいます。

記憶は毎週見直します。一か月読まれていない項目は削除候補として印を付け、現在のコードと矛盾するものは書き直すか削除します。
テストはノートパソコンで九十秒以内に終わること、サイトは千件の項目で五秒以内にビルドできること。
ｶﾀｶﾅの半角表記や、全角の　スペース、「かぎ括弧」、『二重かぎ括弧』、〜波ダッシュ〜も混ざります。
"""

KOREAN = """\
프로젝트 기억은 그것이 설명하는 코드와 같은 저장소에 두기로 했습니다.
에이전트는 세션을 시작할 때 먼저 짧은 색인을 읽고, 작업과 관련 있어 보이는 항목만 불러옵니다.
문맥은 작을수록 좋습니다. 오래된 메모를 만 개의 토큰만큼 받은 모델은 가장 오래되고 부정확한 메모를 따르기 쉽습니다.

개발자가 에이전트의 실수를 바로잡으면, 그 수정 사항은 같은 세션 안에서 기억 항목이 되어야 합니다.
항목에는 무엇이 잘못되었는지, 올바른 동작은 무엇인지, 그리고 왜 그런지를 적습니다.
"왜"가 없으면 다음 에이전트는 규칙을 임의적인 것으로 여기고, 익숙한 습관과 부딪히는 순간 버립니다.

우리는 매주 한 번 기억을 검토합니다. 한 달 동안 읽히지 않은 항목은 삭제 후보로 표시합니다.
테스트는 노트북에서 구십 초 안에 끝나야 하고, 사이트는 천 개의 항목으로 오 초 안에 빌드되어야 합니다.
드문 음절: 똠얌꿍, 쀍, 뷁, 햏, 꿻, 쌰, 퓨, 힣.
"""

RUSSIAN = """\
Мы решили хранить память проекта в самом репозитории, рядом с кодом, который она описывает.
Каждый агент в начале сессии сначала читает короткий индекс и только потом загружает записи,
которые выглядят относящимися к текущей задаче. Чем меньше контекст, тем лучше: модель, которой
дали десять тысяч токенов устаревших заметок, охотно последует самой старой и неточной из них.

Когда разработчик поправляет агента, исправление должно стать записью в памяти в той же сессии.
Запись объясняет, что было не так, как правильно и почему. Без «почему» следующий агент сочтёт
правило произвольным и отбросит его при первом же конфликте с привычкой.
"""

UKRAINIAN = """\
Ми вирішили зберігати пам'ять проєкту в самому репозиторії, поруч із кодом, який вона описує.
Щотижня ми переглядаємо записи: ті, що не читалися місяць, позначаємо як кандидатів на видалення,
а ті, що суперечать поточному коду, переписуємо або видаляємо. Ґанок, їжак, єнот, щастя, ґудзик.
Тести мають завершуватися за дев'яносто секунд на ноутбуці; збірка сайту — до п'яти секунд.

Коли розробник виправляє агента, виправлення має стати записом у пам'яті в тій самій сесії.
Запис пояснює, що було не так, як правильно і чому. Без «чому» наступний агент вважатиме правило
довільним і відкине його при першому ж конфлікті зі звичкою.

Безпекові перевірки відбуваються перед кожним випуском, що зачіпає автентифікацію, файли чи мережу.
Новий учасник клонує репозиторій, запускає одну команду й читає індекс; уже після обіду він
відкриває перший запит на злиття. Їжачок, ґава, джміль, чорнобривці, Київ, Львів, Харків, Одеса.
"""

EMOJI = """\
Release day! 🎉🚀 Tests are green ✅, docs are updated 📚, and the site builds in 3s ⚡.
Family: 👨‍👩‍👧‍👦 👩‍👩‍👦 👨‍👨‍👧‍👧 — technologists: 👩🏽‍💻 👨🏿‍💻 🧑‍🔬 🧑🏻‍🚀 🏳️‍🌈 🏴‍☠️ ❤️‍🔥 🫶🏼
Flags: 🇺🇸 🇬🇧 🇫🇷 🇩🇪 🇯🇵 🇰🇷 🇨🇳 🇺🇦 🇧🇷 🇮🇳 🇪🇺 🏴󠁧󠁢󠁳󠁣󠁴󠁿 🏴󠁧󠁢󠁷󠁬󠁳󠁿
Keycaps: 1️⃣ 2️⃣ 3️⃣ #️⃣ *️⃣ 🔟 — hands: 👍🏻👍🏼👍🏽👍🏾👍🏿 🤝 🙏 ✌️ 🤌
Status board: 🟢 api 🟡 worker 🔴 cron ⚪ backup 🟣 cdn 🟤 legacy ⚫ archive
😀😃😄😁😆😅🤣😂🙂🙃🫠😉😊😇🥰😍🤩😘😗☺️😚😙🥲😋😛😜🤪😝🤑🤗🤭🫢🫣🤫🤔🫡
Weather: ☀️🌤️⛅🌥️☁️🌦️🌧️⛈️🌩️🌨️❄️☃️⛄🌬️💨💧💦🫧☔☂️🌊🌫️
Food: 🍕🍔🍟🌭🥪🌮🌯🫔🥙🧆🥚🍳🥘🍲🫕🥣🥗🍿🧈🧂🥫🍱🍘🍙🍚🍛🍜🍝🍠🍢🍣🍤🍥🥮🍡🥟🥠🥡
- 🐛 fixed the flaky test (again) 🙈; 🔥 removed dead code; ♻️ refactored the loader 🧹
Math & symbols: ∑ ∫ √ ∞ ≠ ≤ ≥ ± × ÷ → ⇒ ↔ ★ ☆ ♠ ♣ ♥ ♦ ✓ ✗ © ® ™ € £ ¥ ₹ ₿ § ¶ …
"""

IDENTIFIERS = """\
550e8400-e29b-41d4-a716-446655440000
6fa459ea-ee8a-3ca4-894e-db77e160355e f47ac10b-58cc-4372-a567-0e02b2c3d479
commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main, origin/main)
sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
md5 d41d8cd98f00b204e9800998ecf8427e, short a1b2c3d4, 0xDEADBEEF, 0x7fff_ffff
https://github.com/memsite/memsite/blob/main/memsite/tokens.py#L42-L77
https://example.com/api/v2/search?q=token+budget&limit=100&offset=200&sort=-created#results
postgres://admin:s3cr3t@db.internal.example.org:5432/memsite?sslmode=require
/home/alice/projects/memsite/.memsite/entries/2026/03/07/a1b2c3d4-use-pnpm.md
C:\\Users\\Bob\\AppData\\Local\\Programs\\Python\\Python311\\python.exe
~/.config/memsite/config.json ../../node_modules/.bin/eslint ./scripts/release.sh
3.14159265358979323846 2.718281828459045 6.02214076e23 -273.15 1,234,567.89 1_000_000
+1 (555) 010-4477, 2026-03-07T09:14:22.123456+00:00, 192.168.1.254:8080, ::1, fe80::1ff:fe23:4567:890a
v1.2.3-rc.4+build.5678 python3.11 ISO-8859-1 UTF-8 x86_64 arm64-v8a IPv6 RFC3339 CVE-2024-3094
AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ghp_16C7e42F292c6912E7710c838347Ae178B4a
base64: TWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsu dGhlIHF1aWNrIGJyb3duIGZveA==
"""

MARKDOWN_BULLETS = """\
# Project memory

## Tooling
- Always use `pnpm`, never npm (tags: tooling) 2026-03-07 a1b2c3d4
- Run `ruff check --fix` before committing; CI fails on any warning (tags: lint, ci) 2026-03-01 0f9e8d7c
- Python 3.11 only: the `tomllib` import in config.py has no fallback (tags: python) 2026-02-11 77aa21bf
- Use `uv pip install -e ".[test]"` in CI, plain pip locally (tags: ci, deps) 2026-01-30 c0ffee42

## Architecture
- Entries live in `.memsite/entries/*.md`; the index is generated, never edited by hand (tags: store) 2026-03-05 5d6e7f80
- The MCP server is read-only except for `memsite_add` (tags: mcp, security) 2026-02-20 9a8b7c6d
- Index budget is 8,000 tokens; bullets are trimmed oldest-first (tags: budget) 2026-03-06 12ab34cd
- **Never** call `git push --force` on `main` — use a revert commit instead (tags: git) 2026-01-15 deadbeef

## Gotchas
- `pytest -n auto` deadlocks with the Chromium fixture; use `-p no:xdist` for browser tests (tags: tests) 2026-03-02 4e5f6a7b
- Windows paths: normalise with `Path.as_posix()` before hashing (tags: windows, paths) 2026-02-27 b1c2d3e4
- The portal's search (lunr.js) can't match CJK without the `lunr-languages` plugin → 中文搜索需要插件 (tags: site, i18n) 2026-02-02 aa11bb22
- Emoji in titles are fine 👍 but strip ZWJ sequences from slugs 👩‍💻 (tags: slugs) 2026-01-09 3c4d5e6f
- Don't log request bodies: they may contain API keys like `sk-...` (tags: security, logging) 2025-12-24 f00dbabe
  - Nested: redact with `detect-secrets` before writing entries (tags: security) 2025-12-24 f00dbac0
* Старый формат: записи без тегов всё ещё читаются (tags: compat) 2025-11-30 0badc0de
+ 日本語のタイトルもそのまま使えます（タグ：i18n）2025-11-29 1234abcd
"""

JARGON_BULLETS = """\
- Use pnpm, not npm or yarn; run `pnpm i --frozen-lockfile` in CI (tags: node) 2026-03-07 a1b2c3d4
- Lint with ruff, type-check with mypy --strict, test with pytest -n auto (tags: python) 2026-03-06 b2c3d4e5
- Dev shell: zsh + tmux + nvim; nvm for node, pyenv + pipx for python (tags: env) 2026-03-05 c3d4e5f6
- Deploy: docker buildx → ghcr.io, then kubectl apply -k k8s/overlays/prod via helm (tags: ops) 2026-03-04 d4e5f6a7
- DB: psql for ad-hoc queries, sqlx for compile-time checked SQL, redis for the cache (tags: db) 2026-03-03 e5f6a7b8
- Frontend: vite + tsx + esbuild; eslintrc and prettierrc are generated, never edit (tags: web) 2026-03-02 f6a7b8c9
- Search: lunr.js in the portal, bm25 + qdrant/weaviate/pgvector for embeddings (tags: search) 2026-03-01 0a1b2c3d
- ML: pydantic models, alembic migrations, tiktoken for counting, safetensors only (tags: ml) 2026-02-28 1b2c3d4e
- LLM backends: vllm, ollama, mistral, qwen; nccl errors mean a CUDA mismatch (tags: ml) 2026-02-27 2c3d4e5f
- CLI helpers: jq, yq, fzf, rg, fd, tflint, onnx, wasm-pack, flit, twine, nox, tox (tags: tools) 2026-02-26 3d4e5f6a
- Scunthorpe, Kubernetes, PostgreSQL, FastAPI, SQLAlchemy, NumPy, PyTorch, TensorFlow (tags: names) 2026-02-25 4e5f6a7b
"""

CONFIG_CODE = """\
# .github/workflows/ci.yml
name: ci
on:
  push: {branches: [main]}
  pull_request:
jobs:
  test:
    runs-on: ubuntu-24.04
    strategy:
      matrix: {python: ["3.11", "3.12", "3.13"]}
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683  # v4.2.2
      - uses: actions/setup-python@v5
        with: {python-version: "${{ matrix.python }}", cache: pip}
      - run: bash .ci/run
        env: {PYTHONDONTWRITEBYTECODE: "1", MEMSITE_LOG: debug}

[tool.ruff]
line-length = 100
target-version = "py311"
[tool.ruff.lint]
select = ["E", "F", "W", "I", "B", "UP", "SIM", "RUF"]

FROM python:3.11-slim AS build
WORKDIR /app
COPY pyproject.toml README.md ./
RUN --mount=type=cache,target=/root/.cache/pip pip install --no-compile -e ".[test]"
EXPOSE 8000/tcp
HEALTHCHECK --interval=30s --timeout=3s CMD curl -fsS http://127.0.0.1:8000/healthz || exit 1
ENTRYPOINT ["memsite", "site", "serve", "--host", "0.0.0.0"]
"""

CORPORA: dict[str, str] = {
    "english_prose": ENGLISH_PROSE,
    "python_code": PYTHON_CODE,
    "javascript_code": JAVASCRIPT_CODE,
    "shell_code": SHELL_CODE,
    "json_code": JSON_CODE,
    "config_code": CONFIG_CODE,
    "markdown_doc": MARKDOWN_DOC,
    "chinese": CHINESE,
    "japanese": JAPANESE,
    "korean": KOREAN,
    "russian": RUSSIAN,
    "ukrainian": UKRAINIAN,
    "emoji": EMOJI,
    "identifiers": IDENTIFIERS,
    "markdown_bullets": MARKDOWN_BULLETS,
    "jargon_bullets": JARGON_BULLETS,
}

CORPUS_CASES = [
    pytest.param(name, encoding, id=f"{name}-{encoding}")
    for name in CORPORA
    for encoding in ENCODINGS
]


# --- never under-count -------------------------------------------------------------------------


@pytest.mark.parametrize(("corpus", "encoding"), CORPUS_CASES)
def test_estimate_covers_the_real_count_of_each_whole_sample(corpus: str, encoding: str) -> None:
    text = CORPORA[corpus]
    assert estimate_tokens(text) >= real_tokens(text, encoding)


@pytest.mark.parametrize(("corpus", "encoding"), CORPUS_CASES)
def test_estimate_covers_the_real_count_of_every_line(corpus: str, encoding: str) -> None:
    lines = CORPORA[corpus].splitlines()
    assert len(lines) >= 5
    candidates = lines + [line + "\n" for line in lines]  # a bullet as it sits in index.md
    under = [
        (line, estimate_tokens(line), real_tokens(line, encoding))
        for line in candidates
        if estimate_tokens(line) < real_tokens(line, encoding)
    ]
    assert under == []


EDGE_CASES = {
    "long space run before a word": " " * 1000 + "word",
    "trailing spaces": "word" + " " * 300,
    "deep indentation": ("\n" + " " * 255 + "x = 1") * 3,
    "spaces before digits": "  1  22   333 " * 20,
    "tabs": "\t" * 50 + "x\t\ty",
    "blank lines": "\n" * 100,
    "windows newlines": "a\r\nb\r\n\r\n" * 20,
    "control characters": "\x00\x01 \x1b[31mred\x1b[0m \x7f" * 10,
    "repeated two letters": "ab" * 60,
    "glued words": "tokenthe" * 12,
    "all caps": "IMPORTANT NEVER FORCE PUSH TO MAIN " * 5,
    "base64": "TWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsuIGFuZCB0aGUgcXVpY2sgYnJvd24gZm94",
    "hex run": "deadbeef" * 16,
    "rare name, five tokens": "Scunthorpe",
    "lorem in other scripts": "lorem لا بسم الله ipsum 你好1234你好",
    "upside down": "ʇǝɯɐ ʇᴉs ɹolop ɯnsdᴉ ɯǝɹo˥",
    "math bold": "𝐓𝐡𝐞 𝐪𝐮𝐢𝐜𝐤 𝐛𝐫𝐨𝐰𝐧 𝐟𝐨𝐱",
    "zalgo": "Ṱ̺̺̕o͞ ̷i̲̬͇̪͙n̝̗͕v̟̜̘̦͟o̶̙̰̠kè͚̮̺̪̹̱̤",
    "family emoji": "👨‍👩‍👧‍👦" * 30,
    "flags": "🇺🇸🇬🇧🇫🇷🇩🇪🇯🇵🇰🇷🇺🇦" * 10,
    "subdivision flag": "🏴󠁧󠁢󠁳󠁣󠁴󠁿 " * 10,
    "combining accents": "e" + "\u0301" * 40,
    "unicode spaces": "a\u00a0b\u3000c\u2028d\u2029e\u0085f",
    "rare cjk": "龘靐齉爩鱻麤貔貅饕餮𠀀𠀁𪚥",
    "lone surrogate": "a\ud800b",
    "special token text": "<|endoftext|> <|im_start|>",
    # one per charging rule: each of these is under-counted if its rule is dropped
    "five-letter code words": "        savestdout = self._savestdout\n    etype, evalue, etb = einfo",
    "rare letters": "        self.Emax = Emax if Emax is not None else dc.Emax",
    "api keys": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY pk_test_TYooMQauvdEDq54NiTphI7jx",
    "transliterated names": "- Stoytcho Stoytchev",
    "vowelless abbreviations": "        ppt, pit, pet, pfn, pframe, pcur = rcur",
    "hex letters between digits": "ae1dbe4f5eae1dbe4f5e 73b9ccee  73b9ccee- 73b9ccee, ",
    "long identifier": "gammavariate = _inst.gammavariate",
    "all-caps keywords": "      HELO    EHLO    MAIL    RCPT    DATA\nCIRCUMFLEXEQUAL = 43",
    "aligned columns": "#  5683  5683  5683  ",
}


@pytest.mark.parametrize("text", list(EDGE_CASES.values()), ids=list(EDGE_CASES))
def test_estimate_covers_the_real_count_of_edge_cases(text: str) -> None:
    if "\ud800" in text:  # not encodable by the tokenizers; the estimate must still not crash
        assert estimate_tokens(text) >= len(text)
        return
    assert estimate_tokens(text) >= worst_real_tokens(text)


# --- property tests ----------------------------------------------------------------------------

# derandomize: the same examples on every run, so CI cannot turn red by chance; the examples
# still cover the full range of st.text(), including Hypothesis's list of awkward strings.
PROPERTY_SETTINGS = settings(
    max_examples=500,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

VOCABULARY_LINES = (
    "the a an and or but if then else when while for to of in on at by with from into is are",
    "was were be been has have had do does not no yes can should must may agent agents memory",
    "index entry entries budget token tokens context session project repository always never",
    "use run test tests build deploy release review commit branch merge rebase push pull python",
    "javascript typescript shell bash json yaml markdown docs README TODO FIXME API CLI CI pnpm",
    "npm yarn pip uv ruff mypy pytest hypothesis docker kubectl git GitHub Linux macOS Windows",
    "config settings default value key path file directory getUserName setTimeout toJSON",
    "parseInt isinstance __init__ __name__ self this None null true false True False undefined",
    "async await return yield import export const let var def class error warning exception",
    "timeout retry cache server client request response status fast slow small large first",
    "last next before after again only The When Every This We It They You Never Always Use",
    "Run Don't can't it's we've they're important IMPORTANT NOTE Note PYTHONPATH HOME PATH",
    "UTF-8 localhost http https www com org io dev main origin HEAD src lib dist node_modules",
    "venv Kubernetes PostgreSQL FastAPI SQLAlchemy NumPy tmux nvim psql jq fzf vite esbuild",
)
VOCABULARY = [word for line in VOCABULARY_LINES for word in line.split()]
PUNCTUATION = [*",.;:!?'\"()[]{}<>-_=+*/\\|`~@#$%^&", "->", "=>", "::", "...", "**", "!=", "&&"]
EMOJI_SEQUENCES = ["🎉", "✅", "⚡", "👍🏻", "👨‍👩‍👧‍👦", "👩🏽‍💻", "🏳️‍🌈", "🇺🇸", "❤️", "1️⃣", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"]

words = st.sampled_from(VOCABULARY)
numbers = st.one_of(
    st.integers(min_value=-(10**15), max_value=10**15).map(str),
    st.floats(allow_nan=False).map(str),
    st.uuids().map(str),
    st.binary(min_size=4, max_size=20).map(bytes.hex),
)
cjk = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),  # CJK ideographs
        st.characters(min_codepoint=0x3040, max_codepoint=0x30FF),  # kana
        st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),  # hangul
    ),
    min_size=1,
    max_size=12,
)
emoji = st.one_of(
    st.sampled_from(EMOJI_SEQUENCES), st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF)
)
pieces = st.one_of(
    words,
    words,
    words,
    st.sampled_from(PUNCTUATION),
    numbers,
    cjk,
    emoji,
    st.tuples(words, cjk).map("".join),  # an ASCII word glued to CJK text
)
separators = st.sampled_from([" ", " ", " ", "  ", "\n", "\t", ", ", ". ", " - ", "\n- ", "/", "_"])
mixed_text = st.lists(st.tuples(pieces, separators), max_size=40).map(
    lambda parts: "".join(piece + sep for piece, sep in parts)
)


@PROPERTY_SETTINGS
@given(st.text())
def test_estimate_covers_the_real_count_of_random_unicode_text(text: str) -> None:
    assert estimate_tokens(text) >= worst_real_tokens(text)


@PROPERTY_SETTINGS
@given(mixed_text)
def test_estimate_covers_the_real_count_of_words_numbers_cjk_and_emoji(text: str) -> None:
    assert estimate_tokens(text) >= worst_real_tokens(text)


# --- not uselessly pessimistic -----------------------------------------------------------------


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_english_prose_estimate_is_at_most_1_6_times_the_real_count(encoding: str) -> None:
    ratio = estimate_tokens(ENGLISH_PROSE) / real_tokens(ENGLISH_PROSE, encoding)
    assert 1.0 <= ratio <= 1.6


@pytest.mark.parametrize("corpus", ["markdown_bullets", "python_code", "json_code"])
def test_index_like_text_estimate_stays_below_twice_the_real_count(corpus: str) -> None:
    text = CORPORA[corpus]
    assert estimate_tokens(text) <= 2 * worst_real_tokens(text)


def test_empty_text_costs_nothing_and_fits_any_budget() -> None:
    assert estimate_tokens("") == 0
    assert fits("", 0)


def test_every_non_empty_text_costs_at_least_one_token() -> None:
    for text in ("a", " ", "\n", "1", ".", "中", "😀"):
        assert estimate_tokens(text) >= 1


def test_estimate_grows_with_the_text() -> None:
    one = estimate_tokens(MARKDOWN_BULLETS)
    assert estimate_tokens(MARKDOWN_BULLETS * 2) > one
    assert estimate_tokens(ENGLISH_PROSE + MARKDOWN_BULLETS) > estimate_tokens(ENGLISH_PROSE)


@pytest.mark.parametrize("corpus", ["english_prose", "markdown_bullets", "chinese", "emoji"])
def test_fits_is_true_exactly_up_to_the_estimate(corpus: str) -> None:
    text = CORPORA[corpus]
    cost = estimate_tokens(text)
    assert fits(text, cost)
    assert fits(text, cost + 100)
    assert not fits(text, cost - 1)
    assert not fits(text, 0)


# --- speed -------------------------------------------------------------------------------------


def test_ten_thousand_bullet_sized_estimates_are_fast() -> None:
    # Target: well under 100 ms on a laptop. The bound leaves room for a loaded CI machine and
    # still catches an accidental quadratic or backtracking regex.
    source = "".join(CORPORA.values())
    samples = [source[i : i + 200] for i in range(0, len(source) - 200, 37)]
    samples = (samples * (10_000 // len(samples) + 1))[:10_000]
    start = time.process_time()
    for sample in samples:
        estimate_tokens(sample)
    assert time.process_time() - start < 1.0


def test_a_megabyte_is_estimated_in_well_under_a_second() -> None:
    text = "".join(CORPORA.values())
    text = text * (1_000_000 // len(text) + 1)
    start = time.process_time()
    cost = estimate_tokens(text)
    assert time.process_time() - start < 1.0
    assert cost > len(text) // 10


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.text())
def test_lower_bound_never_exceeds_the_estimate(text: str) -> None:
    from tests.oracles import lower_bound

    assert lower_bound(text) <= estimate_tokens(text)


@pytest.mark.parametrize(
    "text", ["", "a", "- Always use pnpm\n", "x" * 400, "数据库 " * 30, "  \t  "]
)
def test_lower_bound_holds_on_samples(text: str) -> None:
    from tests.oracles import lower_bound

    assert lower_bound(text) <= estimate_tokens(text)
