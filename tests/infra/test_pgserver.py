"""The course's own PostgreSQL (course.infra.pgserver), on a home of its own: started once, attached to, back after a kill -9,
and a clear message whenever it cannot be had. (The shared server in `.course/pg` is left alone.)"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg
import pytest

from course.infra import pgserver
from course.errors import DatabaseUnavailable
from course.infra.pgserver import DBNAME, PORT, SUPERUSER, EmbeddedPostgres
from course.infra.processes import wait_until

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers


@pytest.fixture
def server():
    # Under /tmp, not pytest's tmp_path: a unix socket path must stay short.
    home = Path(tempfile.mkdtemp(prefix="test-db-", dir="/tmp")) / ".course"
    home.parent.chmod(0o755)  # as a clone's folder usually is: the fallback's system user may enter it
    pg = EmbeddedPostgres(home)
    yield pg
    pid = pg.postmaster_pid()
    if pid:
        pg.stop("immediate")
    shutil.rmtree(home.parent, ignore_errors=True)


def connect(pg: EmbeddedPostgres, **params) -> psycopg.Connection:
    return psycopg.connect(pg.conninfo(**params), autocommit=True)


def start_from_another_process(pg: EmbeddedPostgres) -> str:
    code = ("from pathlib import Path; from course.infra.pgserver import EmbeddedPostgres; "
            f"print(EmbeddedPostgres(Path({str(pg.home)!r})).start())")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_first_start_creates_the_server_and_the_next_ones_attach(server):
    how = server.start()
    assert how.startswith("started (")
    assert start_from_another_process(server) == "attached to the running server"
    with connect(server) as conn:
        assert conn.execute("SHOW server_version_num").fetchone()[0].startswith("18")
        assert conn.execute("SHOW listen_addresses").fetchone()[0] == "", "TCP must stay off: a unix socket only"
    assert len(str(server.socket_dir / f".s.PGSQL.{PORT}")) <= pgserver.SOCKET_PATH_LIMIT
    assert server.stop() is True and server.stop() is False


def test_after_a_kill_9_the_next_start_comes_back_with_every_committed_row(server):
    server.start()
    with connect(server) as conn:
        conn.execute("CREATE TABLE orders (id int PRIMARY KEY)")
        conn.execute("INSERT INTO orders SELECT generate_series(1, 100)")
    pid = server.postmaster_pid()
    os.kill(pid, signal.SIGKILL)  # a pulled plug: postmaster.pid stays behind, backends die with it
    wait_until(lambda: server.postmaster_pid() is None, 30, what="the killed postmaster to be gone")
    assert (server.data_dir / "postmaster.pid").exists()
    assert start_from_another_process(server).startswith("started (")
    with connect(server) as conn:
        assert conn.execute("SELECT count(*) FROM orders").fetchone()[0] == 100


def test_a_stale_pid_file_naming_a_dead_process_does_not_stop_a_start(server):
    server.start()
    server.stop()
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid nobody has now
    (server.data_dir / "postmaster.pid").write_text(f"{dead.pid}\n{server.data_dir}\n")
    assert server.start().startswith("started (")
    assert server.is_ready()


def test_a_data_folder_holding_something_else_is_left_alone_with_a_clear_message(server):
    server.data_dir.mkdir(parents=True)
    (server.data_dir / "notes.txt").write_text("mine")
    with pytest.raises(DatabaseUnavailable, match="holds no PostgreSQL cluster. Move it away"):
        server.start()
    assert (server.data_dir / "notes.txt").read_text() == "mine"


# -- as root where user namespaces are not permitted: a dedicated system user ------------------------

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not (shutil.which("useradd") and shutil.which("runuser")),
    reason="the fallback is for root on a machine with useradd and runuser",
)


# -- only the owner gets in --------------------------------------------------------------------------


NO_PASSFILE = "/nonexistent/pgpass"  # libpq then has no password to offer


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_socket_folder_and_the_password_file_are_the_owners_alone(server):
    server.start()
    assert mode(server.socket_dir) == 0o700
    assert mode(server.socket_dir / f".s.PGSQL.{PORT}") == 0o700
    assert mode(server.password_file) == 0o600
    assert mode(server.data_dir) == 0o700
    with connect(server) as conn:
        assert conn.execute("SHOW unix_socket_permissions").fetchone()[0] == "0700"
        assert conn.execute("SHOW password_encryption").fetchone()[0] == "scram-sha-256"
        rules = conn.execute("SELECT type, auth_method FROM pg_hba_file_rules WHERE error IS NULL").fetchall()
    assert rules == [("local", "scram-sha-256")], "a unix socket only, and never without the password"
    assert server.password_file.read_text().startswith(f"*:*:*:{SUPERUSER}:")


def test_without_the_password_nobody_gets_in_not_even_the_owner(server):
    server.start()
    with pytest.raises(psycopg.OperationalError, match="password"):
        connect(server, passfile=NO_PASSFILE)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        connect(server, passfile=NO_PASSFILE, password="postgres")


def start_like_an_earlier_version(pg: EmbeddedPostgres) -> None:
    """A data folder as versions before the lock-down made and ran it: `trust` for every local user, the
    socket in a folder anyone may enter, no password file."""
    pg.data_dir.mkdir(parents=True)
    pg.data_dir.chmod(0o700)
    pg._run(pgserver.binary("initdb"), "-D", pg.data_dir, "-U", SUPERUSER, "--auth=trust",
            "--encoding=UTF8", "--no-locale", "--no-instructions")
    with open(pg.data_dir / "postgresql.conf", "a") as conf:
        conf.write("\n" + pgserver.SETTINGS)
    pg.socket_dir.mkdir(mode=0o755)
    pg._run(pgserver.binary("pg_ctl"), "start", "-D", pg.data_dir, "-l", pg.log_file, "-w",
            "-o", f"-k {pg.socket_dir} -p {PORT}")
    with psycopg.connect(host=str(pg.socket_dir), port=PORT, user=SUPERUSER, dbname="postgres",
                         autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{DBNAME}"')
    with psycopg.connect(host=str(pg.socket_dir), port=PORT, user=SUPERUSER, dbname=DBNAME,
                         autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (id int)")
        conn.execute("INSERT INTO kept VALUES (1), (2)")


@pytest.mark.skipif(os.geteuid() == 0 and not shutil.which("unshare"), reason="the old version ran in a namespace")
def test_a_running_server_from_an_earlier_version_is_locked_down_on_the_next_start(server, capfd):
    start_like_an_earlier_version(server)
    old_pid = server.postmaster_pid()
    assert old_pid and mode(server.socket_dir) == 0o755 and not server.password_file.exists()

    assert server.start().startswith("started (")
    said = capfd.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith(f"course: upgraded the database in {server.data_dir}"), said
    assert server.postmaster_pid() not in (None, old_pid), "restarted, so the socket settings apply"
    assert mode(server.socket_dir) == 0o700 and mode(server.password_file) == 0o600
    with connect(server) as conn:
        assert conn.execute("SELECT count(*) FROM kept").fetchone()[0] == 2, "the data stays"
        assert conn.execute("SHOW unix_socket_permissions").fetchone()[0] == "0700"
    with pytest.raises(psycopg.OperationalError, match="password"):
        connect(server, passfile=NO_PASSFILE)

    assert server.start() == "attached to the running server", "upgraded once"
    assert capfd.readouterr().err == ""


def test_a_stopped_server_from_an_earlier_version_is_locked_down_too(server, capfd):
    start_like_an_earlier_version(server)
    server.stop()
    assert server.start().startswith("started (")
    assert "course: upgraded the database" in capfd.readouterr().err
    with connect(server) as conn:
        assert conn.execute("SELECT count(*) FROM kept").fetchone()[0] == 2


def test_a_lost_password_file_gets_a_new_password_not_a_locked_out_owner(server, capfd):
    server.start()
    server.password_file.unlink()
    assert server.start().startswith("started (")
    assert "course: upgraded the database" in capfd.readouterr().err
    assert mode(server.password_file) == 0o600
    with connect(server) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_socket_folder_someone_else_made_first_is_not_used(server):
    if os.geteuid() != 0:
        pytest.skip("needs root, to make a folder that belongs to another account")
    server.socket_dir.mkdir(parents=True, mode=0o777)
    os.chown(server.socket_dir, 65534, 65534)  # nobody's, as if another account had made it in /tmp
    with pytest.raises(DatabaseUnavailable, match="belongs to someone else"):
        server.start()


@pytest.fixture
def without_user_namespaces(request):
    """As if `unshare --user` were refused here: the fallback to the system user is taken.

    Only pgserver's own question is answered differently (patching shutil.which would change it for
    the whole process). The patch is undone here, not by monkeypatch: monkeypatch is set up first (the
    autouse progress fixture uses it), so it is undone last, after the `server` fixture has stopped its
    server and cached the fallback for every later test in this process. A server this test started as
    the system user is stopped the same way, before the patch goes."""
    real = pgserver._user_namespaces_refused
    pgserver._user_namespaces_refused = lambda: "refused, as this test pretends"
    pgserver.run_as_postgres_prefix.cache_clear()
    try:
        yield
        if "server" in request.fixturenames:
            started = request.getfixturevalue("server")
            if started.postmaster_pid():
                started.stop("immediate")
    finally:
        pgserver._user_namespaces_refused = real
        pgserver.run_as_postgres_prefix.cache_clear()


@needs_root
def test_without_user_namespaces_root_runs_postgres_as_the_system_user(server, without_user_namespaces):
    prefix, _ = pgserver.run_as_postgres_prefix()  # creates the system user if need be
    postgres = pgserver.binary("postgres")
    if subprocess.run([*prefix, "test", "-x", str(postgres)]).returncode != 0:
        pytest.skip(f"this checkout is in a folder {pgserver.FALLBACK_USER!r} cannot enter ({postgres}); "
                    "the next test covers what a learner is told then")
    how = server.start()
    assert how == f"started (as root, via the system user {pgserver.FALLBACK_USER!r} (user namespaces are not " \
                  "permitted here: refused, as this test pretends))"
    with connect(server) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert server.data_dir.owner() == pgserver.FALLBACK_USER
    assert server.stop() is True
    assert server.start().startswith("started (")


@needs_root
def test_a_home_the_system_user_cannot_enter_gets_a_clear_message_and_no_chmod(without_user_namespaces):
    private = Path(tempfile.mkdtemp(prefix="test-db-private-", dir="/tmp"))  # mode 700, root's
    try:
        pg = EmbeddedPostgres(private / ".course")
        with pytest.raises(DatabaseUnavailable, match="cannot reach .* Clone the course into a folder"):
            pg.start()
        assert private.stat().st_mode & 0o777 == 0o700, "the user's folders must not be chmod-ed"
    finally:
        shutil.rmtree(private, ignore_errors=True)



# -- a second account on the same machine ---------------------------------------------------------

OTHER_USER = "courseother"  # a second local account, as on a shared lab machine or a JupyterHub


@pytest.fixture
def other_user():
    if not (os.geteuid() == 0 and shutil.which("useradd") and shutil.which("runuser")):
        pytest.skip("needs root with useradd and runuser, to act as a second account on this machine")
    if subprocess.run(["id", OTHER_USER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER_USER],
                       check=True)
    return OTHER_USER


def as_other(user: str, *command: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-u", user, "--", *map(str, command)], capture_output=True, text=True,
                          timeout=60, cwd="/")


def assert_the_other_account_gets_nothing(pg: EmbeddedPostgres, user: str) -> None:
    socket_file = pg.socket_dir / f".s.PGSQL.{PORT}"
    assert as_other(user, "test", "-x", pg.socket_dir.parent).returncode == 0, \
        "the test means nothing unless the account could walk up to the socket's folder"
    assert as_other(user, "test", "-e", socket_file).returncode != 0, "the socket must be out of its sight"
    python = next((p for p in (os.path.realpath(sys.executable), "/usr/bin/python3")
                   if as_other(user, "test", "-x", p).returncode == 0), None)
    if python:  # and opening it, as any client would, fails
        opened = as_other(user, python, "-c",
                          f"import socket; socket.socket(socket.AF_UNIX).connect({str(socket_file)!r})")
        assert opened.returncode != 0 and "PermissionError" in opened.stderr, opened
    assert as_other(user, "cat", pg.password_file).returncode != 0, "the password file must be the owner's alone"

    psql = pgserver.binary("psql")
    if as_other(user, "test", "-x", psql).returncode != 0:
        return  # this checkout sits where the account cannot run our psql (a CI clone under /root)
    marker = Path(tempfile.gettempdir()) / f"course-intruder-{os.getpid()}"
    attempt = as_other(user, psql, "-h", pg.socket_dir, "-p", PORT, "-U", SUPERUSER, "-d", DBNAME, "-w", "-c",
                       f"COPY (SELECT 1) TO PROGRAM 'touch {marker}'")
    assert attempt.returncode != 0, attempt.stdout
    assert "Permission denied" in attempt.stderr, attempt.stderr
    assert not marker.exists(), "the other account ran a command through the server"


def test_a_second_account_can_neither_connect_nor_run_anything(server, other_user):
    how = server.start()  # as root: inside a user namespace where permitted, as the server runs in CI
    assert_the_other_account_gets_nothing(server, other_user)
    with connect(server) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,), f"the owner still gets in ({how})"


@needs_root
def test_a_second_account_gets_nothing_from_the_fallback_system_user_either(server, other_user,
                                                                            without_user_namespaces):
    prefix, _ = pgserver.run_as_postgres_prefix()
    if subprocess.run([*prefix, "test", "-x", str(pgserver.binary("postgres"))]).returncode != 0:
        pytest.skip(f"this checkout is in a folder {pgserver.FALLBACK_USER!r} cannot enter")
    server.start()
    assert server.socket_dir.owner() == pgserver.FALLBACK_USER and mode(server.socket_dir) == 0o700
    assert_the_other_account_gets_nothing(server, other_user)
