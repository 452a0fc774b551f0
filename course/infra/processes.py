"""Child processes the course starts (workers, web apps, the email provider), and their clean-up.

Labs SIGKILL these on purpose, so every child is a real process with its own pid, its output in a log
file (a notebook cell should not fill with worker logs), and an entry in a registry that kills whatever
is still running when the parent exits. We only ever signal pids we started.

    spawn(name, argv), python(name, module, *args)    a child, its output in a log file of its own
    with processes.python(...) as child:             ... and killed on leaving the block if it still runs
    python_with(name, module, value, *args)          a child that runs a function of ours: `value` is
                                                     pickled by value (pickle_for_child), the child
                                                     reads it back with unpickle(SPEC)
    environment(variables)                           os.environ as a child started with them sees it
    exchange_folder(prefix)                          a new folder every child may write, sandboxed or not
    wait_until(predicate, timeout)                   poll until true, or TimeoutError saying what for
    start_group(argv), kill_group(popen)             a child leading a process group of its own, and
                                                     the SIGKILL that ends all of it (what it started too)
    output_within(argv, timeout_s)                   run one such child to its end or its deadline
    die_with_parent()                                in a child: the kernel kills it when its parent dies

When a class is graded, code under test must not run unconfined: a value that holds it marks itself
while it is pickled (untrusted_code_pickled), and a child given that spec is started by the launcher
the grader installed (confine_untrusted) — in its sandbox — or not at all. Such a child's files go to
exchange_dir(), the one folder it may write; everything else (logs, specs, servers' URL files) stays
in log_dir(), which it cannot reach.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cloudpickle

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

    def __enter__(self) -> "Child":
        return self

    def __exit__(self, *exc) -> None:
        """Leaving `with processes.python(...) as child:` kills the child if it still runs: nothing of it
        outlives the block. To let it finish its work first, terminate() it inside the block."""
        if self.alive():
            self.kill()


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
    path = Path(os.environ.get("COURSE_LOG_DIR") or Path(tempfile.gettempdir()) / f"course-logs-{os.getuid()}")
    path.mkdir(mode=0o700, exist_ok=True)
    if not _pruned:
        _pruned = True
        cutoff = time.time() - LOG_KEEP_S
        for old in [*path.glob("*.log"), *path.glob("*.pkl")]:
            try:
                if old.stat().st_mtime < cutoff:
                    old.unlink()
            except OSError:
                pass  # another process removed it first
    return path


def exchange_dir() -> Path:
    """Where a child running code under test writes what the check reads back (its history, a marker):
    the one folder such a child may write, when a class is graded; the log folder otherwise."""
    folder = os.environ.get("COURSE_EXCHANGE_DIR")
    if not folder:
        return log_dir()
    path = Path(folder)
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def exchange_folder(prefix: str) -> Path:
    """A new folder in exchange_dir() that every child may write into (a marker, a history): sandboxed,
    each runs as a uid of its own, and the sticky bit keeps each one's files its own. The caller removes it."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=exchange_dir()))
    path.chmod(0o1777)
    return path


def spawn(name: str, argv: Sequence[str], *, env: dict[str, str] | None = None, cwd: str | None = None,
          pass_fds: Sequence[int] = ()) -> Child:
    """Start a process with its output going to a log file named after it; `pass_fds` stay open in it (a
    pipe of its own to us: eventlog.Kept)."""
    log_path = log_dir() / f"{name}-{os.getpid()}-{time.monotonic_ns()}.log"
    argv = [str(arg) for arg in argv]
    env = {**os.environ, **(env or {})}
    untrusted = untrusted_specs_in(argv, env)
    with open(log_path, "wb") as log_file:
        options = dict(stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                       pass_fds=tuple(pass_fds))
        if untrusted:
            if _launch_untrusted is None:
                raise RuntimeError(f"{name} would run code under test outside any sandbox: "
                                   "no launcher was installed (processes.confine_untrusted)")
            popen = _launch_untrusted(argv, untrusted, **options)
        else:
            popen = subprocess.Popen(argv, **options)
    child = Child(name, popen, log_path)
    _alive[child.pid] = child
    return child


def python(name: str, module: str, *args: str, env: dict[str, str] | None = None, pass_fds: Sequence[int] = ()) -> Child:
    """Start `python -m module args...` with this interpreter."""
    return spawn(name, [sys.executable, "-m", module, *args], env=env, pass_fds=pass_fds)


# -- a value for a child: functions travel by value -----------------------------------------------------


def pickle_for_child(value: object, name: str = "spec") -> Path:
    """Write `value` to a file of its own (the owner's alone, in the log folder) for a child to read with
    unpickle(). cloudpickle sends functions by value, so one defined in a notebook runs in the child."""
    path = log_dir() / f"{name}-{os.getpid()}-{time.monotonic_ns()}.pkl"
    _pickling.untrusted = False
    try:
        data = cloudpickle.dumps(value)
    finally:
        untrusted, _pickling.untrusted = _pickling.untrusted, False
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    if untrusted:
        _untrusted_specs.add(str(path))
    return path


# -- code under test: started only by the grader's launcher ---------------------------------------------

_pickling = threading.local()
_untrusted_specs: set[str] = set()
_launch_untrusted: Callable[..., subprocess.Popen] | None = None


def untrusted_code_pickled() -> None:
    """Called by a value, while pickle_for_child pickles it, that holds code under test (an answer
    being graded): the spec is marked, and only the installed launcher may start a child with it."""
    _pickling.untrusted = True


def untrusted_specs_in(argv: Sequence[str], env: dict[str, str]) -> list[str]:
    """The marked specs (holding code under test) that these arguments or environment name."""
    return sorted({spec for spec in _untrusted_specs for text in [*map(str, argv), *env.values()] if spec in text})


def confine_untrusted(launch: Callable[..., subprocess.Popen] | None) -> None:
    """From now on start a child given a marked spec with launch(argv, specs, **popen_options), which
    returns a running subprocess.Popen (in a sandbox); None: refuse to start such a child."""
    global _launch_untrusted
    _launch_untrusted = launch


def unpickle(path: str | Path) -> object:
    """The value pickle_for_child wrote (the file stays: several children may read one)."""
    return cloudpickle.loads(Path(path).read_bytes())


def python_with(name: str, module: str, value: object, *args: str, env: dict[str, str] | None = None) -> Child:
    """Start `python -m module SPEC args...`, SPEC the file holding `value` (for the child's unpickle)."""
    return python(name, module, str(pickle_for_child(value, name)), *args, env=env)


@contextlib.contextmanager
def environment(variables: dict[str, str]):
    """These environment variables in this process for the duration, as a child started with them would
    see them (a handler called here reads the provider's URL from one); restored afterwards."""
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


MOST_PATIENCE = 8.0


def patience() -> float:
    """How many times longer than on an idle machine a wait may take here, now: the run queue per core
    (the one-minute load average over the cores), from 1 to MOST_PATIENCE. At load 40 on two cores each
    process gets a twentieth of a CPU, and starting Python alone can take thirty seconds."""
    try:
        per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        return 1.0
    return min(MOST_PATIENCE, max(1.0, per_core))


class HangBound:
    """A deadline that only bounds a hang, never a race: `seconds` on an idle machine, stretched by
    patience() read at each look (the load may rise while we wait). What it guards must happen eventually;
    the bound only decides how long a stuck program is waited for before it is reported."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def passed(self) -> bool:
        return self.elapsed() > self.seconds * patience()

    def __str__(self) -> str:
        stretch = patience()
        if stretch <= 1.0:
            return f"{self.seconds:g} s"
        return f"{self.seconds:g} s (stretched to {self.seconds * stretch:.0f} s at this machine's load)"


def wait_until(predicate, timeout: float, interval: float = 0.05, what: str = "condition"):
    """Poll `predicate` until it returns something true; TimeoutError once `timeout` seconds, as a
    HangBound (stretched on a loaded machine), have passed."""
    bound = HangBound(timeout)
    while True:
        value = predicate()
        if value:
            return value
        if bound.passed():
            raise TimeoutError(f"{what} not reached within {bound}")
        time.sleep(interval)


# -- a process group with a deadline: a child whose descendants must all go when it does -----------------


def start_group(argv: Sequence[str], **popen_args) -> subprocess.Popen:
    """Start `argv` as the leader of a process group of its own (a new session), so kill_group() reaches
    everything it starts: the workers, servers and grandchildren a check or a graded notebook leaves."""
    return subprocess.Popen(list(argv), start_new_session=True, **popen_args)


def kill_group(popen: subprocess.Popen) -> int:
    """SIGKILL whatever is left of the process group start_group() made, then reap its leader."""
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the whole group has gone already
    return popen.wait()


def output_within(argv: Sequence[str], timeout_s: float, **popen_args) -> tuple[int | None, str, str]:
    """Run `argv` in a process group of its own to its end, its output captured as text; then, or at
    `timeout_s`, SIGKILL the group (anything it left running dies with it). (exit code, stdout, stderr);
    the exit code is None when the deadline came first."""
    child = start_group(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen_args)
    try:
        out, err = child.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(child)
        out, err = child.communicate()
        return None, out, err
    kill_group(child)
    return child.returncode, out, err


def die_with_parent() -> None:
    """In a child, on Linux: the kernel SIGKILLs this process when its parent dies (elsewhere, nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


@atexit.register
def _kill_leftovers() -> None:
    for child in list(_alive.values()):
        if child.alive():
            child.popen.kill()
            child.popen.wait(5)
