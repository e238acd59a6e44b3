"""The search thesaurus: its table of stems is symmetric and not transitive, symbols are
spelled as words, and a query's stems (one word or several) get their alternatives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memsite.core import thesaurus
from memsite.core.stem import stem


def stems(text: str) -> list[str]:
    return [stem(w) for w in thesaurus.rewrite(text).split()]


TABLE = thesaurus.table()


def test_the_table_is_symmetric_and_never_lists_an_expression_as_its_own_other() -> None:
    for expression, others in TABLE.items():
        assert expression not in others
        for other in others:
            assert expression in TABLE[other], (expression, other)


def test_every_expression_of_every_group_is_in_the_table() -> None:
    lines = thesaurus.GROUPS.strip().splitlines()
    assert len(lines) > 100
    for line in lines:
        group = {tuple(stem(w) for w in e.replace("-", " ").split()) for e in line.split(",")}
        for expression in group:
            assert group - {expression} <= set(TABLE[expression]), line


def test_lookups_by_stems() -> None:
    assert TABLE[("pr",)] == (("pull", "request"),)
    assert TABLE[("pull", "request")] == (("pr",),)
    assert TABLE[(stem("tests"),)] == (("spec",), ("unittest",))  # tests, testing: the same stem
    assert ("command", "line") in TABLE[("cli",)]  # command-line spelled as two words


def test_groups_are_not_transitive() -> None:
    error = set(TABLE[(stem("error"),)])
    assert {(stem("exception"),), (stem("failure"),)} <= error
    assert (stem("panic"),) not in error  # exception's other group
    assert (stem("panic"),) in TABLE[(stem("exception"),)]


def test_rewrite_spells_symbols_as_words() -> None:
    assert thesaurus.rewrite("c++ and c# on .net, f#") == " cpp  and  csharp  on  dotnet ,  fsharp "
    assert thesaurus.rewrite("plain text") == "plain text"


def test_related_gives_each_position_its_alternatives() -> None:
    assert thesaurus.related(stems("open a pr now")) == [set(), set(), {"pull", "request"}, set()]
    pull, request = thesaurus.related(stems("pull request"))
    assert (pull, request) == ({"pr"}, {"pr", "req"})  # "request" alone is also "req"
    log, _in = thesaurus.related(stems("log in"), frozenset({"in"}))
    assert log == {"login", "signin", "sign"} == _in  # "in" is skipped among the alternatives
    assert thesaurus.related([]) == []


def test_related_never_gives_a_stem_itself() -> None:
    assert thesaurus.related(stems("test tests"), frozenset()) == [{"spec", "unittest"}] * 2


def test_expansions_merge_positions_of_one_stem() -> None:
    assert thesaurus.expansions(stems("pr pr k8s")) == {
        "pr": {"pull", "request"},
        "k8s": {"kube", "kubernet"},
    }
    found = thesaurus.expansions(stems("db database"))
    assert found == {"db": {"databas"}, "databas": {"db"}}


@given(st.lists(st.sampled_from(sorted({w for k in TABLE for w in k})), max_size=5))
def test_every_alternative_comes_from_the_table(words: list[str]) -> None:
    known = {w for others in TABLE.values() for o in others for w in o}
    for position, extra in zip(words, thesaurus.related(words), strict=True):
        assert extra <= known
        assert position not in extra
