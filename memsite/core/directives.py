"""Suspicious directives: facts that would make an agent run a download, take orders, or send data
out. Pure.

A fact is data about the project; these shapes are instructions to whoever reads it, so a fact
holding one is held back from agents until a person approves it, even when reviewed. Three rules:

- ``pipe-to-shell``: a command piped into a shell (``| sh``, ``| bash``, ``| zsh``, PowerShell,
  ``$SHELL``), into an interpreter that reads its program from standard input (``| python``,
  ``| node -``, ``| perl``; ``| python -m json.tool`` and ``| perl -pe …`` name their program and
  pass), into ``iex`` / ``Invoke-Expression``; a download run through process or command
  substitution (``bash <(curl …)``, ``sh -c "$(curl …)"``, ``eval "$(wget …)"``); decoded base64
  evaluated; ``powershell -enc BLOB``. Pipes into other programs (``| jq``, ``| less``,
  ``| shasum``) are ordinary, and ``||`` is not a pipe.
- ``agent-directive``: words aimed at the agent rather than about the project: "ignore previous
  instructions", "disregard the above", "do not tell the user", "you are now …", requests for the
  system prompt, "new instructions:", chat-template markers (``<|im_start|>``, ``[INST]``).
  Facts may speak to agents ("agents run `pnpm new-test`"): only overriding, secrecy and
  role changes count.
- ``exfiltration-link``: a link that carries data out: userinfo in an http(s), ftp or ws link
  (``https://user:pass@host``; ``ssh://git@host`` is how git addresses a server and passes), a
  query string over :data:`QUERY_MAX` characters or with more than :data:`QUERY_PARAMS_MAX`
  parameters, a query value of :data:`BLOB_MIN` or more base64 or hex characters, a command
  substitution in a link, a query value that expands a secret (``$TOKEN``, ``${API_KEY}``,
  ``${{ secrets.X }}``), a link naming a credential file (``~/.ssh``, ``.env``); and a command
  that sends a credential file or the environment to a server (``curl -d @~/.ssh/id_rsa``,
  ``env | curl``).

The text is matched as an agent would read it: hidden characters stripped (``core.hidden``),
NFKC-folded (full-width ``｜ｓｈ`` is ``| sh``), each line's whitespace folded, case ignored. Every
pattern reads a bounded stretch from where it starts, so the scan is linear in the text.

Measured: 0 flagged of the 430 real facts of ``benchmarks/eval`` and the 64 of the demo store,
48 of 48 attack strings caught by their rule (``benchmarks/directives_eval.py`` prints the
table). Over 8,756 paragraphs of installed packages' READMEs, what fired was real installers
(``curl … | sh``, ``irm … | iex``), Markdown table cells ``|Python|`` (a table row reads as a
pipe, as it does to an agent reading the raw line: kept) and shields.io badge links, whose
queries reach 150 characters (hence :data:`QUERY_MAX`). A fact takes ~20 µs; most hold none
of the words a pattern needs and are passed after one look (``_NEEDS``); 1 MiB shaped to make
a pattern retry (``'| ' * 500_000``) takes about a second.

``suspicion`` gives the rule, a reason and the matched text (with a link's userinfo masked; it
is entry text all the same, to be redacted like any other when shown); ``suspicious`` the rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

PIPE_TO_SHELL = "pipe-to-shell"
AGENT_DIRECTIVE = "agent-directive"
EXFILTRATION_LINK = "exfiltration-link"
RULES = {
    PIPE_TO_SHELL: "runs a downloaded or decoded command in a shell or interpreter",
    AGENT_DIRECTIVE: "tells the agent to drop its instructions, take a new role or hide things",
    EXFILTRATION_LINK: "a link or command that could carry data out of the project",
}
QUERY_MAX = 200  # characters after "?" (shields.io badges reach 150; an inline logo, 2,400)
QUERY_PARAMS_MAX = 8
BLOB_MIN = 48  # one query value this long in base64 or hex: encoded data
EXCERPT_MAX = 80


class Suspicion(NamedTuple):
    rule: str  # one of RULES
    reason: str  # what the pattern found, in a few words
    excerpt: str  # the text it matched (folded), at most EXCERPT_MAX characters


_SHELLS = r"(?:ba|z|da|k|c|tc|a|fi|mk|ya)?sh|pwsh|powershell(?:\.exe)?|cmd(?:\.exe)?"
_INTERPRETERS = r"python[\d.]*|pypy[\d.]*|node(?:js)?|perl|ruby|php|lua"
_DOWNLOADERS = r"curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod"
_SENDERS = r"curl|wget|nc|ncat|netcat"
# What may stand between a pipe and the program: sudo and the like with their options,
# VAR=value assignments, a path (/usr/bin/), a quote.
_PATH = r"(?:[\w.-]*/){0,8}"
_PREFIX = (
    rf"(?:{_PATH}(?:sudo|doas|exec|command|env|nohup|time|nice|stdbuf|busybox)"
    rf"(?: -{{1,2}}[\w-]+(?:=\S*)?){{0,6}} |[a-z_]\w*=\S* ){{0,4}}[\"'\\]?{_PATH}"
)
_PIPE = r"(?<!\|)\|&?(?!\|) ?"  # a pipe, not ||
_END = r"[\"']?(?![\w-]|\.\w)"  # the program's name ends (sh, not shasum or sh.py)
_CREDENTIAL_FILE = (
    r"(?:(?:~|\$home|\$\{home\}|/home/[\w.-]+|/root)/\.(?:ssh|aws|gnupg|kube|docker|netrc"
    r"|npmrc|pypirc|git-credentials|config/gh)|/etc/(?:passwd|shadow)|(?<![\w.])\.env(?![\w.]))"
)
_CREDENTIAL_HINTS = ("/.", "/etc/", ".env")  # one is in every credential file's name
_SECRET_NAME = r"\w*(?:token|secret|passw|pwd|api_?key|private|credential|cookie|session|auth)"


class _Pattern(NamedTuple):
    rule: str
    why: str
    needs: tuple[str, ...]  # the pattern is tried only when the lower-cased text holds one
    regex: str


_PATTERNS = (
    _Pattern(
        PIPE_TO_SHELL,
        "pipes a command into a shell",
        ("|",),
        rf"{_PIPE}{_PREFIX}(?:{_SHELLS}){_END}",
    ),
    _Pattern(
        PIPE_TO_SHELL, "pipes a command into $SHELL", ("$",), rf"{_PIPE}{_PREFIX}\$\{{?shell\b"
    ),
    _Pattern(
        PIPE_TO_SHELL,
        "runs text through PowerShell's Invoke-Expression",
        ("iex", "invoke-expression"),
        rf"{_PIPE}(?:iex|invoke-expression)\b|\biex ?\((?! ?\d)|\biex \$"
        r"|\binvoke-expression ?(?:\(|\$|-command\b)",
    ),
    _Pattern(
        PIPE_TO_SHELL,
        "runs a download through process or command substitution",
        ("curl", "wget", "fetch", "iwr", "irm", "invoke-"),
        rf"(?:(?<![\w.-])(?:{_SHELLS}|{_INTERPRETERS}|eval|source|exec)(?: -{{1,2}}[\w-]+){{0,4}}"
        rf"|(?:^|(?<=[\s;&|(]))\.) (?:-- )?[\"']?(?:<\(|\$\(|`) ?(?:{_DOWNLOADERS})\b",
    ),
    _Pattern(
        PIPE_TO_SHELL,
        "evaluates decoded base64",
        ("base64",),
        r"\beval\b[^\n]{0,80}?\bbase64 (?:-d|--decode|-D)\b",
    ),
    _Pattern(
        PIPE_TO_SHELL,
        "runs an encoded PowerShell command",
        ("powershell", "pwsh"),
        r"\b(?:powershell|pwsh)(?:\.exe)?\b[^\n|;]{0,80}? [-/](?:e|ec|en\w*) [\"']?[a-z0-9+/]{16,}",
    ),
    _Pattern(
        AGENT_DIRECTIVE,
        "tells the agent to ignore its instructions",
        ("ignore", "disregard", "forget", "override", "bypass"),
        r"\b(?:ignore|disregard|forget|override|bypass) (?:(?:all|any|of|the|your|my) ){0,3}"
        r"(?:(?:previous|prior|preceding|earlier|above|foregoing|former|initial|original) )+"
        r"(?:instructions?|directions?|directives?|rules|prompts?|messages|guidelines|commands"
        r"|context|orders|constraints)\b"
        r"|\b(?:ignore|disregard|forget) (?:(?:all|any) )?(?:of )?your (?:instructions|rules"
        r"|guidelines|programming|training|system prompt)\b"
        r"|\b(?:ignore|disregard|forget) (?:everything|all|anything) (?:above|before this"
        r"|you (?:were|have been) told)\b|\b(?:ignore|disregard) (?:the )?above\b",
    ),
    _Pattern(
        AGENT_DIRECTIVE,
        "tells the agent to keep something from the user",
        ("user", "human", "secretly", "covertly"),
        r"\b(?:do not|don'?t|dont|never|must not|should not) (?:(?:ever|even) )?"
        r"(?:tell|inform|notify|alert|(?:mention|reveal|disclose)(?: (?:this|it|that|anything))?"
        r" to) (?:the |your )?(?:user|human)\b"
        r"|\b(?:do not|don'?t|never) let (?:the |your )?user know\b"
        r"|\bwithout (?:telling|informing|notifying|alerting) (?:the |your )?(?:user|human)\b"
        r"|\b(?:keep|hide) (?:this|it|these) (?:(?:secret|hidden) )?from (?:the |your )?"
        r"(?:user|human)\b"
        r"|\bthe user (?:must|should|need) (?:not|never) (?:know|see|find out|be told)\b"
        r"|\b(?:secretly|covertly)\b",
    ),
    _Pattern(
        AGENT_DIRECTIVE,
        "tells the agent to keep something from the user",
        ("mention", "reveal", "disclose"),
        r"\b(?:do not|don'?t|never) (?:mention|reveal|disclose) (?:this|these|that) "
        r"(?:instructions?|message|note|step)\b",
    ),
    _Pattern(
        AGENT_DIRECTIVE,
        "tries to change the agent's role",
        ("you are now", "pretend", "anything now", "developer mode", "act as", "behave as"),
        r"\byou are now (?:an? |no longer\b|acting\b|operating\b|free\b|dan\b|jailbroken\b"
        r"|unrestricted\b|unfiltered\b|in (?:developer|god|dan|unrestricted|jailbreak) mode\b)"
        r"|\bpretend (?:that )?(?:you are|to be)\b|\bdo anything now\b"
        r"|\bdeveloper mode (?:enabled|on)\b|\b(?:act|behave) as (?:if you (?:are|were) )?"
        r"(?:an? )?(?:unrestricted|jailbroken|unfiltered)\b",
    ),
    _Pattern(
        AGENT_DIRECTIVE,
        "addresses the agent's system prompt or gives it new instructions",
        ("prompt", "instruction", "directive"),
        r"\b(?:reveal|print|show|output|repeat|leak|disclose|dump|display|ignore|override"
        r"|forget|replace|update|change|overwrite) (?:me )?(?:your|the|this|its) (?:system "
        r"prompt|initial instructions|hidden instructions|instructions above)\b"
        r"|(?<![\w,] )\b(?:new|updated|real|actual|hidden|secret|revised|override) "
        r"(?:instructions?|directives?|system prompt) ?:",
    ),
    _Pattern(
        AGENT_DIRECTIVE,
        "speaks to an AI reading the text",
        ("if you are",),
        r"\bif you are an? (?:ai|llm|(?:large )?language model|assistant|ai assistant|agent"
        r"|ai agent|bot|chatbot) (?:reading|processing|seeing|parsing) this\b",
    ),
    _Pattern(
        AGENT_DIRECTIVE,
        "holds a chat-template marker",
        ("<|", "inst]", "sys>>", "system>", "system-prompt>", "instructions>"),
        r"<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[/?inst\]|<</?sys>>"
        r"|</?(?:system|system-prompt|instructions)>",
    ),
    _Pattern(
        EXFILTRATION_LINK,
        "sends a credential file to a server",
        _CREDENTIAL_HINTS,
        rf"\b(?:{_SENDERS})\b[^\n;|&]{{0,120}}?(?:@|< ?|\$\(cat |--upload-file |-t |--post-file=)"
        rf"[\"']?{_CREDENTIAL_FILE}|\b(?:scp|rsync)\b[^\n;|&]{{0,120}}?{_CREDENTIAL_FILE}"
        rf"|\bcat [^\n;&|]{{0,80}}?{_CREDENTIAL_FILE}[^\n;&]{{0,120}}?\| ?(?:{_SENDERS})\b",
    ),
    _Pattern(
        EXFILTRATION_LINK,
        "sends the environment to a server",
        ("env",),
        rf"\b(?:env|printenv)\b ?\| ?(?:{_PREFIX})(?:{_SENDERS})\b",
    ),
)
# Every pattern's needs, and what the checks beyond patterns look for.
_NEEDS = tuple(sorted({need for pattern in _PATTERNS for need in pattern.needs} | {"|", "://"}))
# The options by which each interpreter takes its program on the command line.
_PROGRAM_FLAGS = {"python": "cm", "pypy": "cm", "node": "ep", "perl": "eE", "ruby": "e"}
_PROGRAM_FLAGS.update(php="rRBEF", lua="e")
_LONG_PROGRAM_FLAGS = ("--eval", "--print", "--command", "--module")


@cache
def _compiled() -> dict[str, list[tuple[_Pattern, re.Pattern[str]]]]:
    by_rule: dict[str, list[tuple[_Pattern, re.Pattern[str]]]] = {rule: [] for rule in RULES}
    for pattern in _PATTERNS:
        by_rule[pattern.rule].append((pattern, re.compile(pattern.regex, re.IGNORECASE)))
    return by_rule


@cache
def _piped_interpreters() -> re.Pattern[str]:
    return re.compile(
        rf"{_PIPE}{_PREFIX}(?P<name>{_INTERPRETERS}){_END}(?P<args>[^\n;&|)`<>]{{0,200}})",
        re.IGNORECASE,
    )


@cache
def _link_patterns() -> dict[str, re.Pattern[str]]:
    return {
        # Links never overlap: one pass finds them all, and each is checked on its own.
        # (a GitHub Actions expression, ${{ … }}, holds spaces)
        "link": re.compile(
            r"\b(?:https?|ftps?|wss?)://(?:\$\{\{[^}\n]{0,80}\}\}|[^\s<>\"'`])+", re.IGNORECASE
        ),
        "userinfo": re.compile(r"[^/?#@]+@"),
        "secret": re.compile(
            rf"=(?:\$\{{?\{{? ?(?:secrets\.|env\.)?|%24(?:%7b)?){_SECRET_NAME}", re.IGNORECASE
        ),
        "credential": re.compile(_CREDENTIAL_FILE, re.IGNORECASE),
        "blob": re.compile(rf"[a-z0-9+/_%-]{{{BLOB_MIN},}}={{0,2}}", re.IGNORECASE),
    }


def suspicion(text: str) -> Suspicion | None:
    """The first rule ``text`` breaks (in the order of :data:`RULES`), with what it found;
    None when it breaks none."""
    folded = _fold(text)
    lower = folded.lower()
    if not any(need in lower for need in _NEEDS):  # most facts: no pattern could match
        return None
    for rule in RULES:
        for pattern, regex in _compiled()[rule]:
            if any(need in lower for need in pattern.needs):
                found = regex.search(folded)
                if found is not None:
                    return Suspicion(rule, pattern.why, _excerpt(found.group()))
        more = _MORE[rule](folded, lower)
        if more is not None:
            return more
    return None


def suspicious(text: str) -> str | None:
    """The name of the first rule ``text`` breaks (see :data:`RULES`), or None."""
    found = suspicion(text)
    return None if found is None else found.rule


def _fold(text: str) -> str:
    """``text`` as the patterns read it: hidden characters gone (kept joiners and presentation
    selectors too, before NFKC and after it), NFKC, each line's whitespace folded to one
    space, empty lines dropped."""
    if not text.isascii():
        import unicodedata

        text = _visible(unicodedata.normalize("NFKC", _visible(text)))
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _visible(text: str) -> str:
    from memsite.core.hidden import JOINERS, PRESENTATION, strip_hidden

    return strip_hidden(text).translate(dict.fromkeys(map(ord, JOINERS + PRESENTATION)))


def _excerpt(found: str) -> str:
    """What a pattern matched, short, with a link's userinfo masked (it may be a password)."""
    found = re.sub(r"(://)[^\s/?#@]+@", r"\1***@", found)
    return found if len(found) <= EXCERPT_MAX else found[: EXCERPT_MAX - 1] + "…"


def _piped_interpreter(folded: str, lower: str) -> Suspicion | None:
    if "|" not in folded:
        return None
    for found in _piped_interpreters().finditer(folded):
        if _reads_program_from_stdin(found["name"], found["args"]):
            why = "pipes a command into an interpreter that runs it"
            return Suspicion(PIPE_TO_SHELL, why, _excerpt(found.group()))
    return None


def _reads_program_from_stdin(name: str, args: str) -> bool:
    """Whether an interpreter called with ``args`` runs what it reads on standard input: no
    program is named before the command ends, or ``-`` names standard input."""
    family = re.sub(r"[\d.]+$", "", name.lower()).removesuffix("js")
    flags = _PROGRAM_FLAGS.get(family, "")
    for token in args.split():
        token = token.strip("\"'")
        if token == "-":
            return True
        if token.startswith("--"):
            if token.split("=", 1)[0] in _LONG_PROGRAM_FLAGS:
                return False
        elif token.startswith("-"):
            if any(letter in flags for letter in token[1:]):
                return False
        else:
            return False  # a script file: the piped text is its data
    return True


def _nothing(folded: str, lower: str) -> None:
    return None


def _data_link(folded: str, lower: str) -> Suspicion | None:
    """The first link that could carry data out (see the module's docstring)."""
    if "://" not in folded:
        return None
    patterns = _link_patterns()
    for found in patterns["link"].finditer(folded):
        why = _link_problem(found.group(), patterns)
        if why is not None:
            return Suspicion(EXFILTRATION_LINK, why, _excerpt(found.group()))
    return None


def _link_problem(link: str, patterns: dict[str, re.Pattern[str]]) -> str | None:
    after = link.partition("://")[2]
    query = after.partition("?")[2].partition("#")[0].rstrip(").,;:!?]}")  # its end in prose
    params = [p for p in re.split(r"[&;]", query) if p]
    if patterns["userinfo"].match(after):
        return "a link with userinfo (user:password@)"
    if "$(" in link:
        return "a link that runs a command ($(…))"
    if patterns["secret"].search(query):
        return "a link whose query expands a secret"
    if any(hint in link.lower() for hint in _CREDENTIAL_HINTS) and patterns["credential"].search(
        link
    ):
        return "a link naming a credential file"
    if len(query) > QUERY_MAX:
        return f"a link with a query of {len(query)} characters (over {QUERY_MAX})"
    if len(params) > QUERY_PARAMS_MAX:
        return f"a link with {len(params)} query parameters (over {QUERY_PARAMS_MAX})"
    if any(patterns["blob"].fullmatch(p.partition("=")[2]) for p in params):
        return f"a link whose query carries an encoded value of {BLOB_MIN}+ characters"
    return None


# Checks beyond one pattern, tried after a rule's patterns.
_MORE: dict[str, Callable[[str, str], Suspicion | None]] = {
    PIPE_TO_SHELL: _piped_interpreter,
    AGENT_DIRECTIVE: _nothing,
    EXFILTRATION_LINK: _data_link,
}
