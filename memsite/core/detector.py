"""detect-secrets driven over a text in time linear in it: the full tier of ``core.secrets``.

The library runs its patterns over a line at a time, and several read on from each place they
could start to the end of the line: npm's ``//.+/:_authToken=`` from every ``//``, the JWT
pattern from every ``eyJ``, its keyword detector's ``\\w*`` after every ``password``; four
read ``" *"``, ``" +"`` and ``" *"`` in a row, cubic in a run of spaces. On one 1 MiB line
that is minutes. So:

* a long line goes to the library in overlapping windows (:func:`windows`): a secret of up to
  OVERLAP characters lies whole in one of them, cut or not;
* a run of spaces longer than any pattern can tell apart is shortened (:func:`_fewer_spaces`);
* a plugin runs only on windows holding a literal all its patterns need
  (``_PLUGIN_LITERALS``);
* the patterns that read on through a run (JWT's, npm's, OpenAI's, and the keyword
  detector's, which also read its name's run possessively) are searched with
  :func:`memsite.core.prefilter.anchored`: one start of a run is tried rather than each;
* values found are looked for over the whole text within a budget (``core.secrets``).

None of this changes what is found in a line shorter than a window; the tests hold each step
against the library run the plain way. No function here ever formats a secret's value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any, NamedTuple

from memsite.core.prefilter import anchored, compiled, credential_like, entropy_runs, placeholder

# Library matches that are ordinary text: Artifactory's "AP<hex><8+ alnum>" password pattern
# takes invoice and order numbers ("AP20240517001").
_IGNORED_VALUE = r"AP[\dABCDEF][a-zA-Z0-9]{8,}"
# Every pattern of detect-secrets' keyword detector holds a term of its denylist ("api_?key",
# "db_?pass", "password", "pwd", "secret", "contraseña", ...), matched ignoring case, and each
# term holds one of these: a line none of them matches (with the same case rule) is not
# worth the detector's dozen slow patterns. tests/core/test_prefilter.py checks both
# claims.
_KEYWORD_HINT = r"(?i)key|pass|pwd|secret|contrase"
_SKIPPED_PLUGINS = {
    "KeywordDetector",  # run separately, in its assignment-aware mode
    "Base64HighEntropyString",  # replaced by the tuned check below
    "HexHighEntropyString",  # hex digests are ordinary facts ("sha256 9f86…")
    "IPPublicDetector",  # an address is not a credential
}
# For each plugin, literals one of which every match of each of its patterns holds (exactly,
# then ignoring case, as its patterns do; tests/core/test_detector.py draws matches of each
# pattern to check): it runs only on a window holding one. Substring tests in C spare most
# lines most patterns, and some patterns are slow on a window without their literal: npm's
# took 24 ms a 2 KiB window of "/", IBM Cloud's 7 ms one of "ibm-", where most take 0.2 ms.
_PLUGIN_LITERALS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ArtifactoryDetector": (("AKC", "AP"), ()),
    "AWSKeyDetector": (("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), ("aws",)),
    "AzureStorageKeyDetector": (("AccountKey=",), ()),
    "BasicAuthDetector": (("://",), ()),
    "CloudantDetector": ((), ("key", "pw", "pass", "token", "cloudant.com")),
    "DiscordBotTokenDetector": ((".",), ()),
    "GitHubTokenDetector": (("gh",), ()),
    "GitLabTokenDetector": (("gl", "GR1348941"), ()),
    "IbmCloudIamDetector": ((), ("key", "pwd", "pass", "token")),
    "IbmCosHmacDetector": ((), ("secret",)),
    "JwtTokenDetector": (("eyJ",), ()),
    "MailchimpDetector": (("-us",), ()),
    "NpmDetector": (("/:_authToken=",), ()),
    "OpenAIDetector": (("T3BlbkFJ",), ()),
    "PrivateKeyDetector": (("BEGIN", "PuTTY-User-Key-File-2"), ()),
    "PypiTokenDetector": (("pypi-",), ()),
    "SendGridDetector": (("SG.",), ()),
    "SlackDetector": ((), ("xox", "hooks.slack.com")),
    "SoftlayerDetector": ((), ("key", "pwd", "pass", "token", "softlayer")),
    "SquareOAuthDetector": (("sq0csp-",), ()),
    "StripeDetector": (("k_live_",), ()),
    "TelegramBotTokenDetector": ((":",), ()),
    "TwilioKeyDetector": (("AC", "SK"), ()),
}
# Plugins whose one pattern starts with a literal and reads on through a run of characters
# that any later start of it in the run shares (so :func:`anchored` may search it): the
# literal (as its pattern spells it) and the run's pattern.
_ANCHORED_PLUGINS = {
    "JwtTokenDetector": ("eyJ", r"[A-Za-z0-9_=-]*"),
    "NpmDetector": (r"\/\/", r".*"),
    "OpenAIDetector": ("sk-", r"[A-Za-z0-9_-]*"),
}


def slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


@cache
def _library() -> tuple[list[Any], Any, Any]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.keyword import KeywordDetector
    from detect_secrets.util.code_snippet import get_code_snippet

    classes: list[Any] = list(get_mapping_from_secret_type_to_class().values())
    plugins = [cls() for cls in classes if cls.__name__ not in _SKIPPED_PLUGINS]
    return plugins, KeywordDetector(), get_code_snippet


class _Gate(NamedTuple):
    """Whether a window may hold a match of a plugin's patterns (see ``_PLUGIN_LITERALS``)."""

    exact: tuple[str, ...]
    caseless: tuple[str, ...]
    pattern: re.Pattern[str]  # the same test for a text that is not all ASCII

    def admits(self, piece: str, lowered: str | None) -> bool:
        if any(literal in piece for literal in self.exact):
            return True
        if lowered is None:  # ignoring case beyond ASCII, as the plugins' patterns do
            return self.pattern.search(piece) is not None
        return any(literal in lowered for literal in self.caseless)


class _AnchoredPattern:
    """A plugin's pattern, with the ``findall`` its ``analyze_string`` calls done by
    :func:`anchored` (the same matches)."""

    def __init__(self, pattern: re.Pattern[str], anchor: str, run: str) -> None:
        self.pattern, self.anchor, self.run = pattern, anchor, run

    def findall(self, string: str) -> list[Any]:
        found = anchored(self.anchor, self.pattern, self.run, string)
        if self.pattern.groups == 0:
            return [m.group() for m in found]
        if self.pattern.groups == 1:
            return [m.group(1) or "" for m in found]
        return [tuple(g or "" for g in m.groups()) for m in found]


@cache
def _gated_plugins() -> list[tuple[Any, _Gate | None]]:
    """Each plugin (its pattern anchored where it can be), with the gate a window must pass
    for it to run (None: always)."""
    plugins, _, _ = _library()
    found = []
    for plugin in (type(shared)() for shared in plugins):  # its own, to anchor
        name = type(plugin).__name__
        if name in _ANCHORED_PLUGINS and len(plugin.denylist) == 1:
            anchor, run = _ANCHORED_PLUGINS[name]
            if plugin.denylist[0].pattern.startswith(anchor):
                plugin.denylist = [_AnchoredPattern(plugin.denylist[0], anchor, run)]
        gate = None
        if name in _PLUGIN_LITERALS:
            exact, caseless = _PLUGIN_LITERALS[name]
            either = [re.escape(x) for x in exact] + [f"(?i:{re.escape(x)})" for x in caseless]
            gate = _Gate(exact, caseless, re.compile("|".join(either)))
        found.append((plugin, gate))
    return found


class _KeywordPattern(NamedTuple):
    pattern: re.Pattern[str]
    group: int  # the value's
    term: re.Pattern[str] | None  # a denylist term, where the pattern starts with one
    needs: list[str]  # a text holds one of these, or the pattern cannot match


@cache
def _keyword_patterns() -> list[_KeywordPattern]:
    """The keyword detector's patterns in its YAML/INI mode (``memsite.yaml``), each with the
    group holding the value; for those that start with a denylist term and the rest of its
    run of word characters, that term's pattern (for :func:`anchored`) and the pattern with
    that run read possessively; and the literals one of which a text must hold for the
    pattern to match, its separator. (The semicolon one read 50 characters on from each place
    of a "password" run it backed out of: 6 s a MiB of "password".)
    """
    from detect_secrets.plugins import keyword
    from detect_secrets.util.filetype import FileType

    needs = {
        keyword.FOLLOWED_BY_COLON_REGEX: [":"],
        keyword.FOLLOWED_BY_EQUAL_SIGNS_REGEX: ["="],
        keyword.FOLLOWED_BY_QUOTES_AND_SEMICOLON_REGEX: ['";', "';", "`;"],
    }
    terms = "|".join(keyword.DENYLIST)
    head = f"({terms})" + r"\w*"
    found = []
    for pattern, group in keyword.REGEX_BY_FILETYPE[FileType.YAML].items():
        literals = needs.get(pattern, [""])
        if not pattern.pattern.startswith(head):
            found.append(_KeywordPattern(pattern, group, None, literals))
            continue
        # What follows the name's run is never a word character (a separator, a quote, a
        # space): backing out of the run cannot help, and "\w*+" does not.
        held = re.compile(head + "+" + pattern.pattern[len(head) :], pattern.flags)
        found.append(_KeywordPattern(held, group, re.compile(terms, pattern.flags), literals))
    return found


def keyword_values(piece: str) -> Iterator[tuple[str, str]]:
    """What detect-secrets' keyword detector finds in ``piece``, as its ``analyze_line`` of a
    ``memsite.yaml`` line does: the first match of each of its patterns."""
    for pattern, group, term, needs in _keyword_patterns():
        if not any(literal in piece for literal in needs):
            continue
        if term is None:
            found = pattern.search(piece)
        else:
            found = next(anchored(term, pattern, r"\w*", piece), None)
        if found is None:
            continue
        # In its config mode the detector takes the rest of the line ("see 1Password
        # (vault …)"): the first word is the value.
        words = (found.group(group) or "").split()
        value = words[0].strip("\"'`,;") if words else ""
        if credential_like(value):
            yield "secret-keyword", value


def library_values(text: str) -> Iterator[tuple[str, str, int, int]]:
    """(kind, value, start, end) for what detect-secrets finds in ``text``: ``start``-``end``
    is the stretch (a line, or a window of a long one) the value was found in."""
    hint = compiled(_KEYWORD_HINT)
    for line_start, line_end in _lines(text):
        line = text[line_start:line_end]
        if not line.strip():
            continue
        for a, b in windows(line):
            piece = _fewer_spaces(line[a:b] if b - a < len(line) else line)
            if not piece.strip():
                continue
            where = (line_start + a, line_start + b)
            for kind, value in _plugin_values(piece):
                yield (kind, value, *where)
            if hint.search(piece):  # else no pattern of the keyword detector matches
                for kind, value in keyword_values(piece):
                    yield (kind, value, *where)
        for match in entropy_runs(line):
            value = match.group().rstrip("=")
            yield (
                "high-entropy-string",
                value,
                line_start + match.start(),
                line_start + match.end(),
            )


def _plugin_values(piece: str) -> Iterator[tuple[str, str]]:
    lowered = piece.lower() if piece.isascii() else None
    for plugin, gate in _gated_plugins():
        if gate is not None and not gate.admits(piece, lowered):
            continue
        for value in plugin.analyze_string(piece):
            # A credential holds no space, but some patterns run on to the end of the line
            # (npm's .npmrc one); private-key values are armour markers, kept whole.
            if plugin.secret_type != "Private Key" and value.split():
                value = value.split()[0]
            if not placeholder(value) and not compiled(_IGNORED_VALUE).fullmatch(value):
                yield slug(plugin.secret_type), value


# str.splitlines' line boundaries.
_LINE_END = r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]"


def _lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each line of ``text``, as ``str.splitlines`` cuts them."""
    start = 0
    for m in compiled(_LINE_END).finditer(text):
        yield start, m.start()
        start = m.end()
    if start < len(text):
        yield start, len(text)


# A long line goes to the library in windows of WINDOW characters, each overlapping the last
# by OVERLAP, so that every stretch of OVERLAP characters (every secret of that length or less)
# lies whole in one window. Windows are cut at a space where one is near (within _SLACK), so
# that a token is not cut and the patterns see the boundaries the line has. Longer secrets
# (JWTs, PyPI tokens) are found over the whole text by the prefilter's own patterns.
WINDOW = 2048
OVERLAP = 512
_SLACK = 64


def windows(line: str) -> Iterator[tuple[int, int]]:
    """(start, end) of the windows ``line`` is read in: itself when it is short."""
    if len(line) <= WINDOW:
        yield 0, len(line)
        return
    start = 0
    while start + WINDOW < len(line):
        end = _last_space(line, start + WINDOW - _SLACK, start + WINDOW)
        end = start + WINDOW if end is None else end
        yield start, end
        after = _last_space(line, end - OVERLAP - _SLACK, end - OVERLAP)
        start = end - OVERLAP if after is None else after + 1
    yield start, len(line)


def _last_space(line: str, lo: int, hi: int) -> int | None:
    """The index of the last whitespace character of ``line[lo:hi]``, if any."""
    last = None
    for m in compiled(r"\s").finditer(line, lo, hi):
        last = m.start()
    return last


# Four of the library's patterns (IBM Cloud IAM, IBM COS, Cloudant, SoftLayer) read a key name,
# then " *", " +" and " *" again: cubic in a run of spaces ("api_key" and 2,000 spaces took
# 61 s). A longer run is cut to this many, which no pattern tells apart: no value holds a
# space, and the one pattern that counts them (AWS's "aws.{0,20}?key.{0,20}?") spans 20 at
# most.
_SPACES = 21


def _fewer_spaces(piece: str) -> str:
    if " " * (_SPACES + 1) not in piece:
        return piece
    return compiled(f" {{{_SPACES + 1},}}").sub(" " * _SPACES, piece)
