"""The portal reads the memory through one door: what agents load is what the portal shows."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from memsite.memory import Memory
from memsite.portal.build import build_site
from memsite.portal.gather import portal_for
from tests.portal.conftest import copy_demo


def test_the_portal_shows_index_md_as_agents_get_it(tmp_path: Path) -> None:
    """On the demo store (its fact about packages/tax drifted), with a budget that holds
    every fact: the portal's /index.md and "What agents load" are .memsite/index.md."""
    store = copy_demo(tmp_path / "project")
    config = json.loads((store / "config.json").read_text())
    config["memory"]["autoInjectTokenBudget"] = 20_000
    (store / "config.json").write_text(json.dumps(config), encoding="utf-8")
    memory = Memory.open(str(store), {}, store.parent)
    memory.compact()
    agents = (store / "index.md").read_text(encoding="utf-8")
    assert "(check: packages/tax/src/rates.ts changed)" in agents
    site = tmp_path / "site"
    build_site(memory, site)
    assert (site / "index.md").read_text(encoding="utf-8") == agents
    assert portal_for(Memory.open(str(store), {}, store.parent)).index_md == agents
    home = (site / "index.html").read_text(encoding="utf-8")
    part = home.split('<pre class="memsite-index"><code>', 1)[1].split("</code></pre>", 1)[0]
    assert 'href="entries/' in part  # each bullet links to its fact; the text is the same
    assert html.unescape(re.sub(r'<a href="entries/[^"]+/">|</a>', "", part)) == agents
