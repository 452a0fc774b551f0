"""Run a command (`make test`'s pytest), then make sure it left no server of ours running.

    python tools/no_servers_left.py [--grace S] -- .venv/bin/python -m pytest -n 4 --nbval tests solutions labs

The course's own PostgreSQL and NATS server outlive the process that starts them, on purpose: a kernel,
a worker and pytest share them (course/infra/db.py, course/infra/broker.py). A test run leaves them as
it found them: one it found running stays up (JupyterLab may be using it); one it started is stopped at
the end, said in one line (the next use starts it again).

Every other server a run starts (a test's own NATS, a cluster node, a check's private PostgreSQL) must be
stopped by whoever started it. One still running once the command has ended is a leak: it is named,
stopped, and the run fails (exit status 1) even if every test passed.

What the run started: every process started under the command inherits RUN_VARIABLE with this run's
token, and /proc/<pid>/environ shows it (to the same user, and to root). A server started with an
environment of its own making is not seen. Otherwise the exit status is the command's.
"""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's `course`, from any folder

from course.infra import broker, db, processes  # noqa: E402

RUN_VARIABLE = "COURSE_TEST_RUN"
SERVERS = {"nats-server": signal.SIGTERM, "postgres": signal.SIGINT}  # how each shuts down fast and clean
EXIT_GRACE_S = 30.0  # for the command's own processes to finish stopping what they started (atexit); --grace
STOP_WAIT_S = 15.0


@dataclass(frozen=True)
class Leftover:
    pid: int
    name: str  # the process's comm: nats-server, postgres, python3, ...
    argv: tuple[str, ...]

    @property
    def is_server(self) -> bool:
        # A postgres backend forks from its postmaster and goes with it: only the postmaster (-D) counts.
        return self.name in SERVERS and (self.name != "postgres" or "-D" in self.argv)

    def __str__(self) -> str:
        return f"pid {self.pid}: {' '.join(self.argv)[:200]}"


def started_by(token: str) -> list[Leftover]:
    """The live processes that carry RUN_VARIABLE=token, this one aside."""
    mark = f"{RUN_VARIABLE}={token}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if mark not in (entry / "environ").read_bytes().split(b"\0"):
                continue  # not ours, or a zombie (its environ reads empty)
            name = (entry / "comm").read_text().strip()
            argv = tuple(arg.decode(errors="replace") for arg in (entry / "cmdline").read_bytes().split(b"\0") if arg)
        except OSError:  # gone meanwhile, or another user's
            continue
        found.append(Leftover(int(entry.name), name, argv))
    return found


def shared_servers() -> dict[str, int | None]:
    """The pids of the course's own PostgreSQL and NATS server (None: stopped); never starts either.
    A server named by DATABASE_URL, COURSE_DB=docker or NATS_URL is the user's: left out."""
    servers = {}
    if not os.environ.get("DATABASE_URL") and os.environ.get("COURSE_DB", "embedded").lower() == "embedded":
        servers["PostgreSQL"] = db.embedded().postmaster_pid()
    if not os.environ.get("NATS_URL"):
        servers["NATS server"] = broker.shared().pid()
    return servers


def stop_shared(found_running: dict[str, int | None]) -> list[str]:
    """Stop the course's servers that were stopped when the run began; the names of those stopped."""
    stopped = []
    for name, pid in shared_servers().items():
        if pid and not found_running.get(name):
            (db.embedded().stop() if name == "PostgreSQL" else broker.shared().stop())
            stopped.append(name)
    return stopped


def stop(leftover: Leftover) -> None:
    try:
        os.kill(leftover.pid, SERVERS.get(leftover.name, signal.SIGTERM))
        deadline = time.monotonic() + STOP_WAIT_S
        while processes.pid_alive(leftover.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if processes.pid_alive(leftover.pid):
            os.kill(leftover.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def leaked_servers(token: str, keep: set[int], grace_s: float) -> list[Leftover]:
    """The servers the run left, once its own processes have had `grace_s` to stop theirs."""
    deadline = time.monotonic() + grace_s
    while True:
        leaked = [p for p in started_by(token) if p.is_server and p.pid not in keep]
        if not leaked or time.monotonic() > deadline:
            return leaked
        time.sleep(0.5)


def main(argv: list[str]) -> int:
    grace_s = EXIT_GRACE_S
    if argv[:1] == ["--grace"] and len(argv) > 1:
        grace_s, argv = float(argv[1]), argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print(f"usage: {sys.argv[0]} -- COMMAND [ARG...]  (nothing was run)", file=sys.stderr)
        return 2
    token = secrets.token_hex(8)
    found_running = shared_servers()
    child = subprocess.Popen(argv, env={**os.environ, RUN_VARIABLE: token})
    while True:
        try:
            code = child.wait()
            break
        except KeyboardInterrupt:
            continue  # Ctrl-C reached the command too: let it end, then tidy up after it

    stopped = stop_shared(found_running)
    if stopped:
        them = "them" if len(stopped) > 1 else "it"
        print(f"the course's {' and '.join(stopped)}: stopped, as this run had started {them} (the next use starts {them} again)")
    kept = {pid for pid in shared_servers().values() if pid}  # running before the run: the user's to stop
    leaked = leaked_servers(token, kept, grace_s)
    for leftover in leaked:
        print(f"LEFT RUNNING by the run, now stopped: {leftover}", file=sys.stderr)
        stop(leftover)
    others = [p for p in started_by(token) if not p.is_server and p.pid not in kept]
    for leftover in others:
        print(f"note: still running from the run (not a server; left alone): {leftover}", file=sys.stderr)
    if leaked:
        print(f"{len(leaked)} server(s) outlived the command that started them: whoever starts a server must "
              "stop it (a fixture's teardown, a notebook's last cell, atexit)", file=sys.stderr)
        return code or 1
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
