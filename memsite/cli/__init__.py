"""The `memsite` command line: each command calls memsite.memory, portal/ or runners/.

Commands are click's (``memsite.cli.main``), but for the command lines agents and git's hooks
run most (``context``, the session-start hook's, a plain ``add``, ``compact``), which run
without click (``quick``).
"""

from __future__ import annotations

import gc
import sys


def run() -> None:
    """The program's entry point (the `memsite` script and `python -m memsite`): the command,
    and then its objects are frozen out of the cyclic collector's reach, so that the
    interpreter's exit does not walk them all once more (~8 ms of a ~95 ms search at 10k
    entries). Tests call ``main.main`` itself, in one long-lived process."""
    from memsite.cli.quick import plan

    try:
        command = plan(sys.argv[1:])
        if command is not None:
            command()  # exits
        from memsite.cli.main import main

        main()
    finally:
        gc.freeze()
