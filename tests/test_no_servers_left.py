"""`make test` leaves no server running that it started (tools/no_servers_left.py wraps its pytest).

Each case runs the tool around a small command, with COURSE_HOME in its own folder: the course's shared
NATS server there is the case's own, never the one the rest of the suite uses."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from course.infra import nats_server, processes

pytestmark = pytest.mark.slow

TOOL = Path(__file__).resolve().parent.parent / "tools" / "no_servers_left.py"


def run_tool(home: Path, code: str, grace_s: float = 30.0) -> subprocess.CompletedProcess:
    env = {**os.environ, "COURSE_HOME": str(home)}
    env.pop("NATS_URL", None)
    return subprocess.run([sys.executable, str(TOOL), "--grace", str(grace_s), "--", sys.executable, "-c", code],
                          env=env, capture_output=True, text=True, timeout=300)


def shared_in(home: Path) -> nats_server.NatsServer:
    return nats_server.NatsServer(home / "nats")


def test_a_server_the_command_left_running_fails_the_run_and_is_stopped(tmp_path):
    own = nats_server.NatsServer(tmp_path / "own")
    code = f"from course.infra import nats_server; nats_server.NatsServer({str(own.home)!r}).start()"  # outlives us
    try:
        run = run_tool(tmp_path / "home", code, grace_s=1)
        pid = own._state().get("pid")
        assert run.returncode == 1, run
        assert f"LEFT RUNNING by the run, now stopped: pid {pid}: " in run.stderr, run.stderr
        assert str(own.conf_file) in run.stderr, run.stderr
        assert not processes.pid_alive(pid)
    finally:
        own.stop()  # had the tool not stopped it


def test_a_server_stopped_by_its_starter_passes_and_the_commands_status_is_kept(tmp_path):
    own = tmp_path / "own"
    code = (f"from course.infra import nats_server; server = nats_server.NatsServer({str(own)!r}); server.start(); "
            "server.stop(); raise SystemExit(3)")
    run = run_tool(tmp_path / "home", code)
    assert run.returncode == 3, run
    assert "LEFT RUNNING" not in run.stderr, run.stderr


def test_the_courses_own_server_is_stopped_when_the_run_started_it(tmp_path):
    home = tmp_path / "home"
    try:
        run = run_tool(home, "from course.infra import broker; broker.start()")
        assert run.returncode == 0, run
        assert "the course's NATS server: stopped, as this run had started it (the next use starts it again)" in run.stdout, run
        assert shared_in(home).pid() is None
    finally:
        shared_in(home).stop()  # had the tool not stopped it


def test_the_courses_own_server_stays_up_when_it_was_running_before(tmp_path):
    home = tmp_path / "home"
    server = shared_in(home)
    env = {**os.environ, "COURSE_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "course", "broker", "start"], env=env, check=True, capture_output=True)
    try:
        pid = server.pid()
        run = run_tool(home, "from course.infra import broker; broker.start()")  # attaches to it
        assert run.returncode == 0, run
        assert "stopped" not in run.stdout and "LEFT RUNNING" not in run.stderr, run
        assert server.pid() == pid
    finally:
        server.stop()
