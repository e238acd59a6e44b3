"""A short developer thesaurus for search queries: synonyms, abbreviations, spelling variants. Pure.

Each group lists expressions that developers use for the same thing; an expression is one word
or a few (``pull request``). When a query holds one expression of a group, its words also stand
for the words of the group's other expressions: ``pr`` for ``pull`` and ``request``, and ``pull
request`` for ``pr``. Everything is compared as Porter stems (``core.stem``), so ``tests`` and
``testing`` find ``spec`` as ``test`` does. Only the query is expanded; the index and the
portal's analysis are untouched.

The list is general vocabulary, not tuned to any store: words whose meanings differ between
projects (``build``, ``module``, ``cd``) are left out, since a wrong synonym costs more than a
missing one, and so are words whose stem is another common word's (``settings`` stems to
``set``, ``terminate`` to ``termin`` as ``terminal`` does).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from memsite.core.stem import stem

# One group a line; expressions separated by commas.
GROUPS = """
test, tests, spec, testing, unittest
doc, docs, documentation
repo, repository
dependency, dep, deps, package, pkg
package, library, lib, crate
remove, delete, drop, erase
config, configuration, configure, cfg, conf
llm, ai, large language model
ai, artificial intelligence
ml, machine learning
js, javascript
ts, typescript
py, python
rb, ruby
db, database
postgres, postgresql, pg
mongo, mongodb
k8s, kubernetes, kube
node, nodejs
gh, github
env, environment
dir, directory, folder
run, execute, invoke
pr, pull request
mr, merge request
ci, pipeline, continuous integration
cli, command line, command-line
ui, user interface
e2e, end to end, end-to-end
lint, linter, linting
format, formatter, formatting
bug, issue, defect
issue, ticket
error, failure, fail, err
error, exception
exception, panic, crash
throw, raise
install, setup, set up
edit, modify, change, alter
update, upgrade, bump
manually, by hand
generate, regenerate, codegen, code generation
login, log in, sign in, signin, logged in, signed in
logout, log out, sign out, signout
auth, authentication, authenticate
authorization, authorize, permission, perm
credential, password, passwd
disable, turn off, switch off
enable, turn on, switch on
start, begin
stop, halt, kill
cancel, abort
depend, import
dev, develop, development, developer
prod, production
perf, performance
function, func, fn
argument, arg, param, parameter
variable, var
constant, const
property, prop, attribute, attr
async, asynchronous
sync, synchronous
regex, regexp, regular expression
i18n, internationalization, translation, l10n
a11y, accessibility
deprecate, deprecated, obsolete
legacy, old
outdated, stale
vuln, vulnerability
impl, implementation, implement
init, initialize, initialise
admin, administrator
msg, message
img, image
tmp, temp, temporary
max, maximum
min, minimum
num, number
str, string
int, integer
bool, boolean
obj, object
ref, reference
src, source
dest, destination
info, information
util, utility, utils, helper
mock, stub, fake
parallel, concurrent
required, mandatory
forbid, forbidden, prohibit, disallow, ban
allow, permit
refactor, restructure
rollback, revert, undo
release, publish
changelog, release notes, change log
wip, draft, work in progress
example, sample, demo
bench, benchmark
macos, mac, osx
win, windows
os, operating system
id, identifier
url, link, uri
route, endpoint
task, job
cron, schedule
css, style, stylesheet
break, breaking, incompatible
compat, compatibility, compatible
private, internal
dco, signoff, sign-off
cla, contributor license agreement
coc, code of conduct
venv, virtualenv, virtual environment
vm, virtual machine
sso, single sign on, single sign-on
mfa, 2fa, two factor
ssr, server side rendering, server-side rendering
hmr, hot reload, hot module replacement
ast, syntax tree
gc, garbage collection, garbage collector
org, organization, organisation
color, colour
behavior, behaviour
license, licence
optimize, optimise
serialize, serialise
analyze, analyse
normalize, normalise
customize, customise
favor, favour
req, request
res, resp, response
ctx, context
dict, dictionary
arr, array
cb, callback
btn, button
nav, navigation
"""
# Words the tokenizer would break apart or lose: replaced before the query is split.
SYMBOLS = {"c++": " cpp ", "c#": " csharp ", "f#": " fsharp ", ".net": " dotnet "}


@cache
def _table() -> dict[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Each expression (as stems) and the other expressions (as stems) of its groups."""
    table: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for line in GROUPS.strip().splitlines():
        expressions = [_stems(e) for e in line.split(",")]
        for expression in expressions:
            others = table.setdefault(expression, [])
            others += [e for e in expressions if e != expression and e not in others]
    return {k: tuple(v) for k, v in table.items()}


def table() -> dict[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """The thesaurus as stems (the portal's search ships it to the browser)."""
    return _table()


def _stems(expression: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in expression.replace("-", " ").split())


@cache
def _longest() -> int:
    return max(len(k) for k in _table())


def rewrite(text: str) -> str:
    """``text`` with the words the tokenizer cannot keep (``c++``) spelled as words."""
    for symbol, word in SYMBOLS.items():
        if symbol in text:
            text = text.replace(symbol, word)
    return text


def related(stems: Sequence[str], skip: frozenset[str] = frozenset()) -> list[set[str]]:
    """For each position of a query's stems, the stems the thesaurus lets it stand for.

    An expression of several words gives its alternatives to each of its words outside
    ``skip`` (the common words a query drops), so ``log in`` lends ``login`` to ``log``.
    """
    table = _table()
    out: list[set[str]] = [set() for _ in stems]
    for start in range(len(stems)):
        for size in range(1, min(_longest(), len(stems) - start) + 1):
            others = table.get(tuple(stems[start : start + size]))
            if not others:
                continue
            words = {t for o in others for t in o if t not in skip}
            for i in range(start, start + size):
                out[i] |= words - {stems[i]}
    return out


def expansions(stems: Sequence[str], skip: frozenset[str] = frozenset()) -> dict[str, set[str]]:
    """Each distinct stem of a query and what ``related`` gives it, over all its positions."""
    merged: dict[str, set[str]] = {}
    for word, extra in zip(stems, related(stems, skip), strict=True):
        merged.setdefault(word, set()).update(extra)
    return merged
