"""Starting the answer host's process: nothing here imports the database driver, so the checker can
start it first thing and let it import while the checker does (two cores, half the wait).

    process, ours = launch_host(cwd=..., log=..., launch=...)   # then trusted.AnswerHost.adopt(process, ours)
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def launch_host(*, cwd: Path, log: Path, env: dict[str, str] | None = None,
                launch: Callable[..., subprocess.Popen] = None) -> tuple[subprocess.Popen, socket.socket]:
    """Start the answer host's process; (it, our end of its channel)."""
    ours, theirs = socket.socketpair()
    try:
        argv = [sys.executable, "-m", "course.grading.boundary.host", str(theirs.fileno())]
        with open(log, "ab") as out:
            process = (launch or plain_launch)(argv, env={**os.environ, **(env or {})}, cwd=str(cwd),
                                               pass_fds=(theirs.fileno(),), stdout=out)
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    return process, ours


def plain_launch(argv: list[str], *, env: dict, cwd: str, pass_fds: tuple, stdout) -> subprocess.Popen:
    """The process in a session of its own, nothing of ours open in it but the channel."""
    return subprocess.Popen(argv, env=env, cwd=cwd, pass_fds=pass_fds, stdin=subprocess.DEVNULL, stdout=stdout,
                            stderr=subprocess.STDOUT, start_new_session=True, close_fds=True, preexec_fn=_die_with_us)


def _die_with_us() -> None:
    """In the answer's process, before it runs: the kernel kills it when the checks' process dies."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
