"""Child processes the course starts (workers, web apps, the email provider), and their clean-up.

Labs SIGKILL these on purpose, so every child is a real process with its own pid, its output in a log
file (a notebook cell should not fill with worker logs), and an entry in a registry that kills whatever
is still running when the parent exits. We only ever signal pids we started.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_alive: dict[int, "Child"] = {}


@dataclass(eq=False)
class Child:
    name: str
    popen: subprocess.Popen
    log_path: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def signal(self, signum: int) -> None:
        if self.alive():
            self.popen.send_signal(signum)

    def kill(self) -> int:
        """SIGKILL: no clean-up, no goodbye (an out-of-memory kill, a pulled plug)."""
        self.signal(signal.SIGKILL)
        return self.wait(10)

    def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM and wait (what a rolling deploy does); SIGKILL if it will not stop in time."""
        self.signal(signal.SIGTERM)
        try:
            return self.wait(timeout)
        except subprocess.TimeoutExpired:
            return self.kill()

    def wait(self, timeout: float | None = None) -> int:
        code = self.popen.wait(timeout)
        _alive.pop(self.pid, None)
        return code

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(self.log().splitlines()[-lines:])


LOG_KEEP_S = 24 * 3600  # children's logs older than a day are removed (they are for debugging today)
_pruned = False


def pid_alive(pid: int | None) -> bool:
    """True if `pid` is a live process. A zombie (killed, not yet reaped by its parent) counts as dead."""
    if not pid:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc (macOS): ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def log_dir() -> Path:
    global _pruned
    path = Path(tempfile.gettempdir()) / f"course-logs-{os.getuid()}"
    path.mkdir(exist_ok=True)
    if not _pruned:
        _pruned = True
        cutoff = time.time() - LOG_KEEP_S
        for old in path.glob("*.log"):
            try:
                if old.stat().st_mtime < cutoff:
                    old.unlink()
            except OSError:
                pass  # another process removed it first
    return path


def spawn(name: str, argv: Sequence[str], *, env: dict[str, str] | None = None, cwd: str | None = None) -> Child:
    """Start a process with its output going to a log file named after it."""
    log_path = log_dir() / f"{name}-{os.getpid()}-{time.monotonic_ns()}.log"
    with open(log_path, "wb") as log_file:
        popen = subprocess.Popen(
            list(argv), stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})}, cwd=cwd,
        )
    child = Child(name, popen, log_path)
    _alive[child.pid] = child
    return child


def python(name: str, module: str, *args: str, env: dict[str, str] | None = None) -> Child:
    """Start `python -m module args...` with this interpreter."""
    return spawn(name, [sys.executable, "-m", module, *args], env=env)


def wait_until(predicate, timeout: float, interval: float = 0.05, what: str = "condition"):
    """Poll `predicate` until it returns something true; TimeoutError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not reached within {timeout:g} s")
        time.sleep(interval)


@atexit.register
def _kill_leftovers() -> None:
    for child in list(_alive.values()):
        if child.alive():
            child.popen.kill()
            child.popen.wait(5)
