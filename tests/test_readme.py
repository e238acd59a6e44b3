"""README's console examples are real: every ```console block runs, in order, in a fresh folder
standing in for ``/home/me``, and each command's output must match what README shows.

Ids, times and dates differ from run to run, so both sides are normalized: each distinct id is
numbered in order of first appearance, and an id that README's later commands type (`memsite
amend 087a263a …`) is replaced by the id this run produced in its place. To refresh README from
a real run after a deliberate change::

    python -m tests.test_readme --update
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import clean_env

README = Path(__file__).resolve().parents[1] / "README.md"
HOME = "/home/me"
_BLOCK = re.compile(r"```console\n(.*?)```", re.S)
_ID = re.compile(
    r"(?<![0-9a-f])[0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?(?![0-9a-f])"
)
_TIMES = [
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z"), "<file-time>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z"), "<time>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "<date>"),
]


@dataclass
class Step:
    command: str
    expected: str  # README's output lines, joined


def steps(text: str) -> list[list[Step]]:
    """The console blocks of README: each a list of commands with their shown output."""
    blocks = []
    for body in _BLOCK.findall(text):
        block: list[Step] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                block.append(Step(line[2:], ""))
            elif block:
                block[-1].expected += line + "\n"
        blocks.append(block)
    return blocks


class Ids:
    """Ids seen in README and in this run, matched by order of first appearance."""

    def __init__(self) -> None:
        self.readme: list[str] = []
        self.actual: list[str] = []

    @staticmethod
    def _note(seen: list[str], text: str) -> None:
        for found in _ID.findall(text):
            if found[:8] not in seen:
                seen.append(found[:8])

    def normalize(self, text: str, seen: list[str]) -> str:
        self._note(seen, text)
        text = _ID.sub(
            lambda m: f"<id{seen.index(m.group()[:8]) + 1}{'-full' if len(m.group()) > 8 else ''}>",
            text,
        )
        for pattern, mark in _TIMES:
            text = pattern.sub(mark, text)
        return text

    def as_run(self, command: str) -> str:
        """README's command with the ids it types replaced by this run's."""

        def swap(match: re.Match[str]) -> str:
            short = match.group()[:8]
            if short in self.readme:
                number = self.readme.index(short)
                if number < len(self.actual):
                    return self.actual[number][: len(match.group())]
            return match.group()

        return _ID.sub(swap, command)


def run(blocks: list[list[Step]], home: Path) -> list[list[tuple[str, str]]]:
    """Run every command in order (the working directory carries over): each command as it
    ran (this run's ids in it) and its output."""
    env = clean_env()
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["HOME"] = str(home)
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    cwd = home
    pwd_file = home.parent / "pwd"
    ids = Ids()
    outputs = []
    for block in blocks:
        shown = []
        for step in block:
            command = ids.as_run(step.command)
            ids._note(ids.readme, step.expected)
            script = f"{command}\nstatus=$?\npwd > {pwd_file}\nexit $status"
            done = subprocess.run(
                ["bash", "-c", script],
                cwd=cwd,
                env=env,
                capture_output=False,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                check=False,
            )
            cwd = Path(pwd_file.read_text().strip())
            out = done.stdout.replace(str(home), HOME)
            ids._note(ids.actual, out)
            shown.append((command, out))
        outputs.append(shown)
    return outputs


def compare(blocks: list[list[Step]], outputs: list[list[tuple[str, str]]]) -> list[str]:
    """One line per step whose output differs from README (after normalization)."""
    problems = []
    expected_ids, actual_ids = Ids(), Ids()
    for block, shown in zip(blocks, outputs, strict=True):
        for step, (_, out) in zip(block, shown, strict=True):
            want = expected_ids.normalize(step.expected, expected_ids.readme)
            got = actual_ids.normalize(out, actual_ids.readme)
            if want != got:
                problems.append(f"$ {step.command}\n--- README\n{want}--- this run\n{got}")
    return problems


def fresh_run() -> tuple[list[list[Step]], list[list[tuple[str, str]]]]:
    blocks = steps(README.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch).resolve() / "me"
        home.mkdir()
        return blocks, run(blocks, home)


def test_readme_console_examples_are_what_memsite_prints() -> None:
    blocks, outputs = fresh_run()
    assert sum(len(b) for b in blocks) >= 10, "README has lost its console examples"
    problems = compare(blocks, outputs)
    assert not problems, "\n\n".join(problems)


def test_the_comparison_sees_a_drifted_example() -> None:
    blocks = [[Step("echo Compacted 3 entries", "Compacted 3 entries\n")]]
    assert compare(blocks, [[("", "Compacted 2 entries\n")]])
    assert not compare(blocks, [[("", "Compacted 3 entries\n")]])
    ids = [[Step("echo x", "Written 1a6658e5 at 2026-11-30\n")]]
    assert not compare(ids, [[("", "Written 9f00aa11 at 2027-01-02\n")]])  # ids, dates vary
    two = [[Step("a", "1a6658e5\n"), Step("b", "1a6658e5 087a263a\n")]]
    assert compare(two, [[("", "9f00aa11\n"), ("", "9f00aa12 9f00aa11\n")]])  # but not order


def update() -> None:
    """Rewrite README's console outputs from a fresh run (ids and times as this run made them,
    paths under /home/me)."""
    text = README.read_text(encoding="utf-8")
    _, outputs = fresh_run()
    bodies = iter(outputs)

    def render(match: re.Match[str]) -> str:
        shown = next(bodies)
        lines = [f"$ {command}\n{out}" for command, out in shown]
        return "```console\n" + "".join(lines) + "```"

    README.write_text(_BLOCK.sub(render, text), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        update()
    else:
        raise SystemExit(__doc__)
