"""A worker as a process of its own: how one starts, and a stop that comes while it starts.

    spawn(app, schema=...)      `python -m course worker ...` as a child process
    conninfo(dsn, schema)       the connection string the command (and spawn) gives a worker
    stopping_while_starting()   SIGTERM or SIGINT before the worker runs: exit 0 at once

The loop the process runs is course/core/worker.py's Worker; the command line is course/cli.py's
`worker`.
"""

from __future__ import annotations

import signal

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from course.core import queue as q

STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}  # a clean stop: finish what runs, claim nothing new, exit 0


def conninfo(dsn: str | None = None, schema: str | None = None) -> str:
    """The connection string a worker uses: `dsn` (the course database when None), its tables resolved in
    `schema` and nowhere else. Not `schema,public`: a worker told to work on a schema without a jobs table
    must say so, not quietly take public's."""
    from course.infra import db

    if dsn is None:
        return db.conninfo(schema)
    if schema is None:
        return dsn
    options = conninfo_to_dict(dsn).get("options")
    return make_conninfo(dsn, options=f"{options or ''} -c search_path={schema}".strip())


def spawn(app: str, *, schema: str | None = None, queue: str = q.DEFAULT_QUEUE, concurrency: int = 4,
          lease_s: float = q.DEFAULT_LEASE_S, poll_interval_s: float = 1.0, listen: bool = True,
          name: str = "worker", env: dict[str, str] | None = None, dsn: str | None = None):
    """Start `python -m course worker ...` as a child process (see course.infra.processes.Child).

    It works on the course database, unless `dsn` names another PostgreSQL (the benchmark's and the
    chaos soak's own servers); `schema` applies to either.
    """
    from course.infra import processes

    args = ["worker", "--app", app, "--queue", queue, "--concurrency", str(concurrency), "--lease-s", str(lease_s),
            "--poll-interval-s", str(poll_interval_s), "--dsn", conninfo(dsn)]
    if schema is not None:
        args += ["--schema", schema]
    if not listen:
        args.append("--no-listen")
    # The child starts with SIGTERM and SIGINT blocked (a signal mask survives exec): one sent while Python
    # starts and imports would otherwise kill it outright (exit -15), as a crash. They stay pending until
    # the worker can take them: from stopping_while_starting() on, or Worker.run().
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        return processes.python(name, "course", *args, env=env)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


class StoppedWhileStarting(SystemExit):
    """SIGTERM or SIGINT before Worker.run() took them over: nothing was claimed, so exit 0 at once."""

    def __init__(self) -> None:
        super().__init__(0)


def stopping_while_starting() -> None:
    """From now until Worker.run() takes the signals over, SIGTERM or SIGINT ends the process cleanly.

    A worker stopped while it imports its handlers has claimed nothing: the right answer is to exit at once
    with 0 (a clean stop), not to die of the signal (-15, a crash to a supervisor) nor to start and drain.
    Call it first thing in the process's main thread (`python -m course worker` does).
    """

    def stop_now(signum, frame):
        raise StoppedWhileStarting

    for signum in STOP_SIGNALS:
        signal.signal(signum, stop_now)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # one that came while blocked arrives now
