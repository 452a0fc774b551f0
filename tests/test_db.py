"""The course's own PostgreSQL, on a home of its own: started once, attached to, back after a kill -9,
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

from course import pgserver
from course.errors import DatabaseUnavailable
from course.pgserver import DBNAME, PORT, SUPERUSER, EmbeddedPostgres
from course.processes import wait_until

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


def connect(pg: EmbeddedPostgres) -> psycopg.Connection:
    return psycopg.connect(host=str(pg.socket_dir), port=PORT, user=SUPERUSER, dbname=DBNAME, autocommit=True)


def start_from_another_process(pg: EmbeddedPostgres) -> str:
    code = ("from pathlib import Path; from course.pgserver import EmbeddedPostgres; "
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


@pytest.fixture
def without_user_namespaces(monkeypatch):
    """As if `unshare --user` were refused here: the fallback to the system user is taken."""
    real_which = shutil.which
    monkeypatch.setattr(pgserver.shutil, "which", lambda name: None if name == "unshare" else real_which(name))
    pgserver.run_as_postgres_prefix.cache_clear()
    yield
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
                  "permitted here))"
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


# -- choosing a database ------------------------------------------------------------------------------


def run_course(*args, **env):
    return subprocess.run([sys.executable, "-m", "course", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_docker_asked_for_without_an_engine_is_one_clear_line_naming_the_three_ways(monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    result = run_course("db", "url", COURSE_DB="docker", DOCKER_HOST="unix:///tmp/no-docker-here.sock")
    assert result.returncode != 0
    assert "COURSE_DB=docker, but no Docker engine answered" in result.stderr + result.stdout
    assert "DATABASE_URL" in result.stderr + result.stdout and "Traceback" not in result.stderr


def test_the_db_command_says_which_database_in_one_line():
    status = run_course("db", "status")
    assert status.returncode == 0 and "Traceback" not in status.stderr
    url = run_course("db", "url")
    assert url.returncode == 0 and url.stdout.strip().startswith(("postgresql://", "host=", "dbname="))
