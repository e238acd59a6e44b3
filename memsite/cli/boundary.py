"""The command line's one error boundary and its plain output, without click.

Every failure ends as one line ``Error: …`` on stderr (and ``{"error": …}`` on stdout with
``--json``): exit 2 for a malformed command line, 1 for everything else, never a traceback for
a user error. ``main`` puts click's own errors around :func:`guarded`; the commands ``quick``
runs without click use it as it is, so that both fail alike.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from memsite.core.text import json_safe, one_line, printable
from memsite.errors import InvalidInputError, MemsiteError, SecretFoundError

SECRET_HINT = "; if it is a reviewed false positive, pass --allow-secret"
STDIN_MAX = 1 << 20
# Standard input as a command read it, while :func:`retried` runs the command: an attempt
# made again gets the same text (the stream is spent), not an empty one.
_stdin: list[list[bytes]] = []


def echo(text: str, *, err: bool = False) -> None:
    """``text`` and a newline, flushed (what ``click.echo`` writes for a str)."""
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()


def say(text: str = "", *, nl: bool = True, err: bool = False) -> None:
    """Print for a person: control characters removed (newlines and tabs kept)."""
    text = printable(text, multiline=True)
    if nl:
        echo(text, err=err)
    elif text:
        stream = sys.stderr if err else sys.stdout
        stream.write(text)
        stream.flush()


def warn(message: str) -> None:
    say(f"Warning: {message}", err=True)


def dumps(value: Any) -> str:
    return json_safe(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False))


def hide_secrets(message: str) -> str:
    """A usage error echoes what was typed: never a credential pasted as an argument."""
    from memsite.core.prefilter import prefilter
    from memsite.core.secrets import redact

    return redact(message) if prefilter(message) else message


def fail(message: str, as_json: bool, code: int) -> NoReturn:
    line = printable(one_line(hide_secrets(message)))
    if as_json:
        echo(json_safe(json.dumps({"error": line}, ensure_ascii=False)))
    echo(f"Error: {line}", err=True)
    sys.exit(code)


def guarded(call: Callable[[], Any], as_json: bool) -> NoReturn:
    """Run ``call`` and exit with its code (an int, else 0); memsite's errors, Ctrl-C and a
    reader that went away end as they always do."""
    try:
        code = call()
    except SecretFoundError as exc:
        fail(str(exc) + SECRET_HINT, as_json, 1)
    except MemsiteError as exc:
        fail(str(exc), as_json, getattr(exc, "exit_code", 1))
    except KeyboardInterrupt:
        fail("interrupted", as_json, 130)
    except BrokenPipeError:  # the reader went away (`memsite list | head`): nothing to say
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


def retried(attempt: Callable[[list[Any]], Any]) -> Any:
    """``attempt(opened)``, once more if it failed on a damaged cache of the last memory it
    opened (noted in ``opened``), which is then rebuilt (``memory.recover_cache``). Both
    attempts read the same standard input (:func:`text_argument`)."""
    opened: list[Any] = []
    _stdin.append([])
    try:
        try:
            return attempt(opened)
        except Exception as exc:
            from memsite.memory import recover_cache

            if isinstance(exc, MemsiteError) or not opened:
                raise
            if not recover_cache(opened[-1], exc):  # the last opened: a past state's, if any
                raise
        return attempt([])
    finally:
        _stdin.pop()


def text_argument(value: str, what: str, limit: int = STDIN_MAX, *, whole: bool = False) -> str:
    """A text argument, or standard input when it is ``-`` (decoded strictly, at most
    ``limit`` bytes), without the one line break that ends what `echo` or a file gives
    (unless ``whole``: a file to import is read as it is)."""
    if value != "-":
        return value
    held = _stdin[-1] if _stdin else []
    if not held:
        stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
        held.append(stream.read(limit + 1) if stream is not None else sys.stdin.read().encode())
    data = held[0]
    if len(data) > limit:
        raise InvalidInputError(f"{what} on standard input is over {limit} bytes: shorten it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{what} on standard input is not valid UTF-8 (byte {exc.start}): convert it first, "
            "e.g. with iconv"
        ) from None
    if whole or not text.endswith("\n"):
        return text
    return text[:-2] if text.endswith("\r\n") else text[:-1]
