"""Query planning and scoring: thesaurus alternatives, compounds, typos, common words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import pytest

from memsite.core import ranking, thesaurus
from memsite.core.stem import stem, terms


class FakeIndex:
    """What ``ranking.plan`` asks of the index, over a few texts."""

    def __init__(self, *texts: str) -> None:
        self.terms = Counter(t for text in texts for t in set(terms(text)))
        self.words = {w for text in texts for w in ranking.word_tokens(ranking.normalize(text))}

    def frequency(self, stems: set[str]) -> Mapping[str, int]:
        return {s: self.terms[s] for s in stems if s in self.terms}

    def nearby(self, length: int, spread: int) -> Iterable[str]:
        return sorted(w for w in self.words if abs(len(w) - length) <= spread)

    def prefixed(self, prefix: str, limit: int) -> Iterable[str]:
        return sorted(t for t in self.terms if t.startswith(prefix))[:limit]

    def plan(self, query: str) -> dict[str, dict[str, float]]:
        found = ranking.plan(query, self.frequency, self.nearby, self.prefixed)
        return {term.word: dict(term.alternatives) for term in found}


@pytest.mark.parametrize(
    ("query", "word", "stands_for"),
    [
        ("pr title", "pr", {"pull", "request"}),
        ("pull request title", "pull", {"pr"}),
        ("pull request title", "request", {"pr"}),
        ("failing tests", "tests", {"spec"}),
        ("testing", "testing", {"spec"}),
        ("k8s deploy", "k8s", {stem("kubernetes")}),
        ("signed in as admin", "signed", {"login", "signin"}),
        ("edit it by hand", "hand", {stem("manually")}),
    ],
)
def test_thesaurus_alternatives_follow_stems_and_expressions(
    query: str, word: str, stands_for: set[str]
) -> None:
    stems = [stem(t) for t in thesaurus.rewrite(query).split()]
    related = thesaurus.expansions(stems, frozenset({"in", "by", "it", "as"}))
    assert stands_for <= related[stem(word)]


def test_a_word_alone_does_not_borrow_from_an_expression_it_is_part_of() -> None:
    related = thesaurus.expansions([stem("log"), stem("files")])
    assert "login" not in related[stem("log")]


def test_symbols_the_tokenizer_would_lose_are_spelled_as_words() -> None:
    assert ranking.query_words("C++ class names") == ["cpp", "class", "names"]
    assert ranking.query_words("c# or f#") == ["csharp", "fsharp"]


def test_question_words_contraction_tails_and_words_stemming_to_them_are_dropped() -> None:
    assert ranking.query_words("what's the one rule we don't break?") == ["rule", "break"]
    assert ranking.query_words("how do I") == ["how", "do", "i"]  # nothing else is left


def test_a_synonym_weighs_less_than_the_word_itself() -> None:
    plan = FakeIndex("Run the specs before a release").plan("tests")
    assert plan["tests"]["test"] == 1.0
    assert plan["tests"]["spec"] == ranking.SYNONYM_WEIGHT


@pytest.mark.parametrize(
    ("text", "query", "word", "term"),
    [
        ("Dark mode uses darkmode tokens", "dark mode colours", "dark", stem("darkmode")),
        ("Generated files: zz_generated.deepcopy", "deep copy code", "copy", stem("deepcopy")),
        ("Set the dark_mode flag", "dark mode", "mode", "dark_mode"),
        ("Both sides of the split", "split_sides", "split_sides", "side"),
    ],
)
def test_compounds_the_index_holds_stand_for_their_parts(
    text: str, query: str, word: str, term: str
) -> None:
    assert FakeIndex(text).plan(query)[word][term] == ranking.COMPOUND_WEIGHT


def test_compounds_the_index_lacks_are_not_added() -> None:
    assert set(FakeIndex("Deep water, copy that").plan("deep copy")["deep"]) == {"deep"}


@pytest.mark.parametrize(("query", "word"), [("pnmp", "pnmp"), ("pnmp install", "pnmp")])
def test_a_typo_still_finds_its_word(query: str, word: str) -> None:
    plan = FakeIndex("Use pnpm, never npm or yarn").plan(query)
    assert plan[word]["pnpm"] == ranking.FUZZY_WEIGHT[1]


def test_a_typo_finds_the_synonyms_of_the_word_it_misspells() -> None:
    plan = FakeIndex("PR titles name the component", "A pull request").plan("pull reqeust title")
    assert plan["reqeust"][stem("request")] == ranking.FUZZY_WEIGHT[1]  # a swap counts 1
    assert plan["reqeust"]["pr"] == pytest.approx(ranking.SYNONYM_WEIGHT * ranking.FUZZY_WEIGHT[1])
    assert plan["pull"]["pr"] == ranking.SYNONYM_WEIGHT


def test_a_known_word_gets_no_near_spellings() -> None:
    assert "holm" not in FakeIndex("helm charts", "holm typo").plan("helm")["helm"]


def test_the_fact_that_says_pr_ranks_first_for_pull_request() -> None:
    texts = {
        "pr": "PR titles take the form [component] description",
        "other": "Title case for headings in the docs",
    }
    index = FakeIndex(*texts.values())
    plan = ranking.plan("pull request title format", index.frequency, index.nearby)
    stats = ranking.Stats(
        len(texts), 6.0, index.frequency({a for t in plan for a in t.alternatives})
    )
    scores = {k: ranking.score(plan, terms(v), (), stats, 0.0) for k, v in texts.items()}
    assert scores["pr"] > scores["other"] > 0
