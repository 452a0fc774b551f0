"""A PrivateServer whose owner was killed beyond Python's reach is stopped by the next one of its prefix,
and a server whose owner lives is left alone."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from course.infra import processes
from course.infra.pgserver import EmbeddedPostgres
from course.infra.private_server import PrivateServer, stop_orphans

pytestmark = [pytest.mark.timeout(300)]

OWNER = """
import sys, time
from course.infra.private_server import PrivateServer
server = PrivateServer(prefix=sys.argv[1]).__enter__()
print(server.home, flush=True)
time.sleep(600)
"""


def test_a_server_whose_owner_was_killed_is_stopped_by_the_next_run_and_a_live_ones_is_not():
    prefix = f"orphan-test-{os.getpid()}-"  # this test's own: no other run's server matches it
    owner = subprocess.Popen([sys.executable, "-c", OWNER, prefix], stdout=subprocess.PIPE, text=True)
    try:
        home = owner.stdout.readline().strip()
        assert home, "the owner printed no folder"
        postmaster = EmbeddedPostgres(Path(home)).postmaster_pid()
        assert postmaster is not None
        with PrivateServer(prefix=prefix) as alive:  # its owner (this process) lives: left alone below
            assert stop_orphans(prefix) == []
            owner.send_signal(signal.SIGKILL)  # no atexit, no finally: the server outlives its owner
            owner.wait()
            assert processes.pid_alive(postmaster)
            assert [str(home) for home in stop_orphans(prefix)] == [home]
            assert not processes.pid_alive(postmaster) and not os.path.exists(home)
            assert alive.server.postmaster_pid() is not None and alive.home.exists()
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
        stop_orphans(prefix)  # when an assertion failed before the sweep
