"""Fixtures shared by the tests: a real PostgreSQL (never a mock), a fresh schema per test, and worker
processes that are always stopped, also when a test fails."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from pathlib import Path

import pytest

from course.infra import db
from course.core import queue
from course.errors import DatabaseUnavailable

TESTS = Path(__file__).parent
RECORDING_APP = f"{TESTS / 'apps' / 'recording.py'}:handlers"


@pytest.fixture(autouse=True)
def private_progress(tmp_path, monkeypatch):
    """Each test records check results in a progress file of its own."""
    monkeypatch.setenv("COURSE_PROGRESS_FILE", str(tmp_path / "progress.json"))


@pytest.fixture(scope="session")
def database() -> db.Database:
    try:
        return db.database()
    except DatabaseUnavailable as error:
        if os.environ.get("COURSE_DB", "").lower() == "docker":
            pytest.skip(f"COURSE_DB=docker but no Docker engine answered: {str(error).splitlines()[0]}")
        raise


@pytest.fixture
def schema(database, request) -> str:
    """A schema of its own, with the queue's tables, dropped afterwards."""
    test_name = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:40]
    name = f"t_{test_name}_{secrets.token_hex(3)}"
    db.reset_schema(name)
    with db.connect(name) as conn:
        queue.install(conn)
    yield name
    db.drop_schema(name)


@pytest.fixture
def conn(schema):
    with db.connect(schema) as connection:
        yield connection


@pytest.fixture
def started():
    """What a test starts: `started.append(child)`, `started += children`. At the end each leaves as its
    `with` block would (a processes.Child is killed, a server handle stopped), also when the test fails."""
    things: list = []
    yield things
    with contextlib.ExitStack() as stack:
        for thing in things:
            stack.push(thing)  # its __exit__, called when the stack closes; one that raises stops no other


@pytest.fixture
def start_workers(schema, started):
    """start_workers(n, app=..., **settings) -> [Child]; every one is killed at the end of the test."""
    from course.core import worker

    def start(n: int = 1, app: str = RECORDING_APP, **settings):
        children = [worker.spawn(app, schema=schema, name=f"worker{len(started) + i}", **settings)
                    for i in range(n)]
        started.extend(children)
        return children

    return start
