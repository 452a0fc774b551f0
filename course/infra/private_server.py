"""A PostgreSQL of our own, in a temporary folder, for measurements and fault injection.

The course's shared server (`.course/pg`) is used by the notebooks and by other test runs at the same
time. A benchmark wants a server nobody else loads, and the chaos soak restarts its server on purpose:
both get one of these instead. Same binaries, same settings, its own data folder and socket; stopped
and deleted when the `with` block ends, also on an error or a Ctrl-C. A process killed beyond Python's
reach (SIGKILL, a test's hard timeout) cannot stop its server: the next PrivateServer of the same prefix
from the same checkout does, by the pid in its postmaster.pid, once the owner that its `owner.json`
names is gone.

    with PrivateServer() as server:
        conn = psycopg.connect(server.conninfo(schema="bench"))
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import tempfile
from pathlib import Path

from course.infra import processes
from course.infra.pgserver import EmbeddedPostgres

OWNER = "owner.json"  # in the server's folder: the process that started it, and from which checkout
CHECKOUT = str(Path(__file__).resolve().parents[2])


class PrivateServer:
    def __init__(self, prefix: str = "course-pg-"):
        stop_orphans(prefix)
        # /tmp, not the project folder: a unix socket path must stay under ~100 bytes.
        self.home = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
        (self.home / OWNER).write_text(json.dumps({"pid": os.getpid(), "checkout": CHECKOUT}))
        self.server = EmbeddedPostgres(self.home)
        self._stopped = False

    def __enter__(self) -> "PrivateServer":
        atexit.register(self.close)  # a Ctrl-C between here and __exit__ still stops the server
        self.server.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            self.server.stop("immediate")  # its data is thrown away next: no need to be gentle
        finally:
            shutil.rmtree(self.home, ignore_errors=True)
            atexit.unregister(self.close)

    def conninfo(self, schema: str | None = None, **params) -> str:
        """A connection string; with `schema`, tables resolve there first (as course.infra.db.conninfo)."""
        if schema is not None:
            params["options"] = f"-c search_path={schema},public"
        return self.server.conninfo(**params)

    def restart(self, mode: str) -> None:
        """Stop with pg_ctl's `mode` (fast: clients are told; immediate: a crash) and start again."""
        self.server.restart(mode)

    def stop(self, mode: str = "fast") -> None:
        self.server.stop(mode)

    def start(self) -> None:
        self.server.start()


def stop_orphans(prefix: str) -> list[Path]:
    """Stop (SIGQUIT: PostgreSQL's immediate shutdown) and delete each server of this prefix and this
    checkout whose owner process is gone; the folders it deleted. A server of another checkout, of a live
    owner, or without an owner file (being set up, or by an older version) is left alone."""
    swept = []
    for home in Path("/tmp").glob(f"{prefix}*"):
        try:
            owner = json.loads((home / OWNER).read_text())
        except (OSError, ValueError):
            continue
        if owner.get("checkout") != CHECKOUT or processes.pid_alive(owner.get("pid")):
            continue
        postmaster = EmbeddedPostgres(home).postmaster_pid()
        if postmaster is not None:
            try:
                os.kill(postmaster, signal.SIGQUIT)
                processes.wait_until(lambda: not processes.pid_alive(postmaster), timeout=30,
                                     what=f"the orphaned PostgreSQL {postmaster} to stop")
            except (ProcessLookupError, PermissionError, TimeoutError):
                continue
        shutil.rmtree(home, ignore_errors=True)
        swept.append(home)
    return swept
