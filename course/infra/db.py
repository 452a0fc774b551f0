"""Which PostgreSQL the course uses, and connections to it.

Chosen in this order, and said in one line (`describe()`):
  1. DATABASE_URL, when set: a PostgreSQL you run (or the docker-compose one);
  2. COURSE_DB=docker: a throwaway container via testcontainers, when a Docker engine answers;
  3. otherwise the course's own embedded PostgreSQL 18 (see pgserver.py), started on first use.

Worker processes we start get the same database through `conninfo()`; they never choose again.
"""

from __future__ import annotations

import atexit
import os
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from course.errors import DatabaseUnavailable, first_line
from course.infra.pgserver import DBNAME, EmbeddedPostgres

DOCKER_IMAGE = "postgres:18.1"  # the same pin as docker-compose.yml
CONNECT_TIMEOUT_S = 5


def project_home() -> Path:
    """The `.course` folder: runtime state (database files, progress) that git ignores.

    COURSE_HOME overrides it; otherwise it sits beside the `course` package in a checkout, or in the
    current folder when the package was installed elsewhere.
    """
    if "COURSE_HOME" in os.environ:
        return Path(os.environ["COURSE_HOME"]).resolve()
    checkout = Path(__file__).resolve().parents[2]  # course/infra/db.py -> the checkout
    if (checkout / "pyproject.toml").exists():
        return checkout / ".course"
    return Path.cwd() / ".course"


def embedded() -> EmbeddedPostgres:
    return EmbeddedPostgres(project_home())


@dataclass(frozen=True)
class Database:
    mode: str  # "url", "docker" or "embedded"
    conninfo: str
    description: str  # one line, for people


_chosen: Database | None = None


def _redacted(url: str) -> str:
    try:
        params = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "<unparseable>"
    if "password" in params:
        params["password"] = "***"
    return make_conninfo(**params)


def _from_url(url: str) -> Database:
    try:
        with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
    except (psycopg.Error, ValueError) as error:
        raise DatabaseUnavailable(
            f"DATABASE_URL is set ({_redacted(url)}) but that database did not answer: {first_line(error)}"
        ) from None
    return Database("url", url, f"PostgreSQL {version} from DATABASE_URL ({_redacted(url)})")


def _from_docker() -> Database:
    try:
        import docker
        from testcontainers.postgres import PostgresContainer

        docker.from_env().ping()
    except Exception as error:  # the docker client raises many kinds, all meaning "no engine"
        raise DatabaseUnavailable(
            f"COURSE_DB=docker, but no Docker engine answered ({first_line(error)})."
        ) from None
    container = PostgresContainer(DOCKER_IMAGE, username="course", password="course", dbname=DBNAME,
                                  driver=None).start()
    atexit.register(container.stop)
    url = container.get_connection_url()
    # Worker processes we start inherit the environment: they attach to this container, not start one.
    os.environ["DATABASE_URL"] = url
    return Database("docker", url, f"PostgreSQL in a Docker container ({DOCKER_IMAGE}, {_redacted(url)})")


def _from_embedded() -> Database:
    server = embedded()
    how = server.start()
    info = server.conninfo()  # names the password file, never the password: workers get it on their command line
    return Database("embedded", info, f"embedded PostgreSQL 18, {how}, socket in {server.socket_dir}")


def database() -> Database:
    """The database this process uses, chosen (and started) on first call."""
    global _chosen
    if _chosen is None:
        if os.environ.get("DATABASE_URL"):
            _chosen = _from_url(os.environ["DATABASE_URL"])
        elif os.environ.get("COURSE_DB", "").lower() == "docker":
            _chosen = _from_docker()
        elif os.environ.get("COURSE_DB", "embedded").lower() == "embedded":
            _chosen = _from_embedded()
        else:
            raise DatabaseUnavailable(f"COURSE_DB={os.environ['COURSE_DB']!r} is not a mode we know.")
    return _chosen


def describe() -> str:
    """One line saying which database is in use."""
    return database().description


def conninfo(schema: str | None = None, **params) -> str:
    """A connection string for our database; with `schema`, tables resolve there first.

    A schema per lab (and per check) keeps a learner's experiments from leaking into each other.
    """
    if schema is not None:
        params["options"] = f"-c search_path={schema}"
    return make_conninfo(database().conninfo, **params)


def reached_here(info: str) -> str:
    """`info` as this process reaches the server: with DATABASE_URL's host and port, when that is set.

    A child given a connection string by the process that started it (a check's worker, a server running
    a learner's function) uses this: in class grading such a child runs in a sandbox whose one way to
    PostgreSQL is its gate, named by DATABASE_URL, not the socket its starter connects through. The role,
    its password, the database and the options stay the starter's. Anywhere else both name one server.
    """
    here = conninfo_to_dict(os.environ.get("DATABASE_URL") or "")
    return make_conninfo(info, **{key: str(here[key]) for key in ("host", "port") if here.get(key)})


def connect(schema: str | None = None, *, autocommit: bool = True, **kwargs) -> psycopg.Connection:
    """A new connection. Autocommit by default: write `with conn.transaction():` where you want one.

    If the embedded server was stopped under us (a lab restarts it on purpose), start it again.
    """
    info = conninfo(schema)
    try:
        return psycopg.connect(info, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_S, **kwargs)
    except psycopg.OperationalError as error:
        if database().mode != "embedded":
            raise DatabaseUnavailable(f"{describe()} did not answer: {first_line(error)}") from None
    embedded().start()
    return psycopg.connect(info, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_S, **kwargs)


def reset_schema(name: str) -> None:
    """Drop the schema with everything in it and create it empty."""
    with connect() as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))


def drop_schema(name: str) -> None:
    with connect() as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


def status() -> str:
    """A line for `python -m course db status`; never starts anything."""
    if os.environ.get("DATABASE_URL"):
        try:
            return database().description
        except DatabaseUnavailable as error:
            return str(error).splitlines()[0]
    server = embedded()
    pid = server.postmaster_pid()
    if pid and server.is_ready():
        return f"embedded PostgreSQL 18 is running (pid {pid}, socket in {server.socket_dir})"
    return "embedded PostgreSQL 18 is stopped (`python -m course db start` starts it)"


def stop() -> str:
    if os.environ.get("DATABASE_URL"):
        return "DATABASE_URL is set: that database is yours to stop; nothing done."
    return "stopped" if embedded().stop() else "was not running"
