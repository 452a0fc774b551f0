"""Which PostgreSQL the course uses (course.infra.db): `python -m course db` says which in one line, and a
database asked for that cannot be had is one clear line naming the three ways to get one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # the command starts the course's database when it is not running


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
