"""The course's NATS server and a JetStream cluster: real nats-server processes from the wheel.

Every test that stops or kills a server uses one of its own, in a temporary folder: the shared server
in .course/nats belongs to everyone working in this checkout. Deadlines are generous (a loaded 2-core
machine); measured times are printed, never asserted.
"""

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone

import nats
import nats.errors
import pytest

from course.infra import broker, nats_cluster, nats_server, processes
from course.errors import BrokerUnavailable, StreamNotFound
from course.infra.nats_server import NatsServer
from course.infra.processes import wait_until

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers


@pytest.fixture
def private_server(tmp_path):
    server = NatsServer(tmp_path / "nats", survives_exit=False)
    yield server
    server.stop()


def attach_from_another_process(home) -> str:
    """What a relay or a notebook kernel sees when it asks for the server."""
    script = f"from pathlib import Path; from course.infra import nats_server; print(nats_server.NatsServer(Path({str(home)!r})).start())"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_binary_comes_from_the_wheel_in_this_environment():
    binary = nats_server.server_binary()
    assert binary.name == "nats-server"
    assert binary.is_relative_to(os.path.realpath(sys.prefix)), "a nats-server from PATH may be another version"
    assert nats_server.server_version()[0].isdigit()


def test_a_server_starts_once_others_attach_and_stop_ends_it(private_server):
    assert private_server.start().startswith("started")
    pid, url = private_server.pid(), private_server.url()
    assert url.startswith("nats://127.0.0.1:")

    assert attach_from_another_process(private_server.home) == f"attached to the running server (pid {pid})"
    assert private_server.pid() == pid

    broker.ensure_stream("T", ["t.>"], url=url)
    broker.publish("t.hello", {"n": 1}, url=url)
    assert broker.count_messages("T", url=url) == 1

    assert private_server.stop() is True
    assert not processes.pid_alive(pid)
    assert private_server.url() is None
    assert "stopped" in private_server.status()
    assert private_server.stop() is False


def test_after_kill_9_the_next_start_starts_again_on_the_same_port_with_the_data(private_server):
    private_server.start()
    pid, url = private_server.pid(), private_server.url()
    broker.ensure_stream("T", ["t.>"], url=url)
    for n in range(3):
        broker.publish("t.order", {"n": n}, msg_id=f"order-{n}", url=url)

    os.kill(pid, signal.SIGKILL)  # our own child: a pulled plug
    wait_until(lambda: private_server.pid() is None, 10, what="the killed server to count as gone")
    assert "was killed" in private_server.status()

    assert private_server.start().startswith("started")
    assert private_server.pid() not in (None, pid)
    assert private_server.url() == url, "a restarted server should keep its port, so clients find it again"
    assert broker.count_messages("T", url=url) == 3


def test_a_server_that_cannot_start_says_so_with_its_log(tmp_path, monkeypatch):
    broken = tmp_path / "nats-server"
    broken.write_text("#!/bin/sh\necho 'fatal: pretend the store is corrupt' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setattr(nats_server, "server_binary", lambda: broken)
    server = NatsServer(tmp_path / "nats", survives_exit=False)
    with pytest.raises(BrokerUnavailable) as raised:
        server.start(timeout=20)
    message = str(raised.value)
    assert "did not start: it exited" in message and "pretend the store is corrupt" in message
    assert str(server.log_file) in message and "NATS_URL" in message  # what to do next
    assert server.pid() is None


def test_nats_url_is_used_as_given_and_a_dead_one_is_named(private_server, monkeypatch):
    private_server.start()
    # Standing in for a server of the user's: its credentials are theirs to give, here in the URL.
    given = private_server.url().replace("nats://", f"nats://{nats_server.token()}@")
    monkeypatch.setenv("NATS_URL", given)
    assert broker.url() == given
    assert "from NATS_URL" in broker.describe() and nats_server.token() not in broker.describe()
    assert "nothing done" in broker.stop() and private_server.pid()
    broker.ensure_stream("EXT", ["ext.>"])  # no url: NATS_URL's server
    assert broker.count_messages("EXT", url=private_server.url()) == 0

    [closed_port] = nats_server.free_ports(1)
    monkeypatch.setenv("NATS_URL", f"nats://127.0.0.1:{closed_port}")
    with pytest.raises(BrokerUnavailable, match="no NATS server answered"):
        broker.url()
    assert "no NATS server answered" in broker.status()


def test_the_course_server_lives_in_the_project_home_and_outlives_its_starter(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_HOME", str(tmp_path))  # a project home of our own: the shared one is untouched
    monkeypatch.delenv("NATS_URL", raising=False)
    try:
        assert "started" in broker.describe()
        url = broker.url()
        assert broker.shared().home == tmp_path / "nats" and (tmp_path / "nats" / "store").is_dir()
        assert "attached" in attach_from_another_process(tmp_path / "nats")
        assert broker.status().startswith("NATS (JetStream) is running")
        assert broker.url() == url
    finally:
        assert broker.stop() == "stopped"
    assert "stopped" in broker.status()


def test_sync_helpers_work_where_an_event_loop_already_runs(private_server):
    """A Jupyter kernel runs an asyncio loop in its main thread: asyncio.run() would fail there."""
    private_server.start()
    url = private_server.url()

    async def notebook_cell():
        broker.ensure_stream("NB", ["nb.>"], url=url)
        broker.publish("nb.cell", "hello", url=url)
        return broker.messages("NB", url=url)

    [message] = asyncio.run(notebook_cell())
    assert (message.subject, message.data) == ("nb.cell", "hello")
    with pytest.raises(StreamNotFound, match="No stream takes the subject 'elsewhere.cell'"):
        broker.publish("elsewhere.cell", "hello", url=url)
    with pytest.raises(StreamNotFound, match="ensure_stream"):
        broker.count_messages("NOPE", url=url)


# -- the cluster -------------------------------------------------------------------------------------


def running(pids) -> list[int]:
    return [pid for pid in pids if processes.pid_alive(pid)]


def test_a_replicated_stream_survives_its_leader_being_killed_and_retries_duplicate_nothing():
    with nats_cluster.Cluster.start(3) as cluster:
        print(f"\ncluster formed in {cluster.formed_in_s:.2f} s, meta leader {cluster.meta_leader()}")
        info = broker.ensure_stream("ORDERS", ["orders.>"], replicas=3, url=cluster.urls)
        assert {info.cluster.leader, *(peer.name for peer in info.cluster.replicas)} == {"n1", "n2", "n3"}
        for n in range(20):
            broker.publish("orders.placed", {"n": n}, msg_id=f"order-{n}", url=cluster.urls)

        old_leader = cluster.leader_of("ORDERS")
        cluster.kill(old_leader)
        killed_at, killed_wall = time.monotonic(), datetime.now(timezone.utc)
        # The first publishes may time out while the survivors elect a leader, and a timed-out one may
        # have been stored anyway: retrying with the same Nats-Msg-Id makes both cases safe.
        for n in range(20, 40):
            broker.publish("orders.placed", {"n": n}, msg_id=f"order-{n}", url=cluster.urls, timeout=2,
                           retry_for=90)
            if n == 20:
                print(f"publishing resumed {time.monotonic() - killed_at:.2f} s after {old_leader} was killed")
        new_leader = cluster.leader_of("ORDERS")
        assert new_leader != old_leader and cluster.meta_leader() is not None
        elected = broker.stream_info("ORDERS", url=cluster.live_urls).cluster.leader_since - killed_wall
        print(f"{new_leader} was elected leader of ORDERS {elected.total_seconds():.2f} s after the kill")

        # A producer that never saw its acks sends again: JetStream keeps one copy.
        for n in (5, 25, 39):
            again = broker.publish("orders.placed", {"n": n}, msg_id=f"order-{n}", url=cluster.urls, retry_for=30)
            assert again.duplicate
        stored = broker.messages("ORDERS", url=cluster.live_urls)
        assert sorted(m.data["n"] for m in stored) == list(range(40)), "lost or duplicated messages"

        cluster.restart(old_leader)
        wait_until(lambda: all(peer.current for peer in broker.stream_info("ORDERS", url=cluster.urls).cluster.replicas),
                   60, interval=0.2, what="the restarted node to catch up")
        broker.publish("orders.placed", {"n": 40}, msg_id="order-40", url=cluster.urls, retry_for=30)
        assert broker.count_messages("ORDERS", url=cluster.urls) == 41
        pids = [node.pid for node in cluster.nodes.values()]
    assert running(pids) == []


def test_a_stream_that_lost_its_majority_is_waited_for_then_named_not_called_missing():
    with nats_cluster.Cluster.start(3) as cluster:
        broker.ensure_stream("QUORUM", ["quorum.>"], replicas=3, url=cluster.urls)
        broker.publish("quorum.x", {"n": 1}, msg_id="q-1", url=cluster.urls)
        survivor, *others = cluster.nodes
        for name in others:
            cluster.kill(name)
        began = time.monotonic()
        # The survivor answers "no responders" (we wait, then name the majority) or lets the publish time
        # out (its ack may yet come: retry with the same id). Never "there is no such stream".
        with pytest.raises((BrokerUnavailable, *broker.TRANSIENT)) as raised:
            broker.publish("quorum.x", {"n": 2}, msg_id="q-2", url=cluster.live_urls, timeout=2)
        assert not isinstance(raised.value, StreamNotFound)
        if isinstance(raised.value, BrokerUnavailable):
            assert "is a majority of its replicas up" in str(raised.value)
        assert time.monotonic() - began >= 1.5, "a silent stream is waited for about `timeout` before giving up"


def test_a_stream_request_left_unanswered_is_asked_again(private_server, monkeypatch):
    """A cluster that has just formed can leave a JetStream request unanswered (CI, stop 33: lab 13's check
    stopped on "nats: timeout" in ensure_stream). The first request here times out as that one did; the
    stream is still made, once."""
    private_server.start()
    url = private_server.url()
    real, calls = broker._using_jetstream, []

    async def first_one_unanswered(servers, work, timeout):
        calls.append(timeout)
        if len(calls) == 1:
            raise nats.errors.TimeoutError
        return await real(servers, work, timeout)

    monkeypatch.setattr(broker, "_using_jetstream", first_one_unanswered)
    info = broker.ensure_stream("AGAIN", ["again.>"], url=url)
    assert info.config.name == "AGAIN" and len(calls) == 2
    monkeypatch.undo()
    assert broker.stream_info("AGAIN", url=url).config.subjects == ["again.>"]


def test_a_timeout_inside_a_nats_call_is_passed_on_not_called_our_own():
    async def times_out_inside():
        raise asyncio.TimeoutError("nats: timeout")

    with pytest.raises(TimeoutError, match="nats: timeout"):
        broker.run(times_out_inside(), timeout=30)


def test_every_node_is_stopped_when_a_with_block_fails_and_when_python_exits(tmp_path):
    with pytest.raises(RuntimeError, match="a failing lab cell"):
        with nats_cluster.Cluster.start(3) as cluster:
            pids = [node.pid for node in cluster.nodes.values()]
            raise RuntimeError("a failing lab cell")
    assert running(pids) == [] and not cluster.home.exists()

    # A Python that starts a cluster and a private server and simply exits.
    script = (
        "from pathlib import Path; from course.infra import nats_cluster, nats_server\n"
        "cluster = nats_cluster.Cluster.start(3)\n"
        f"server = nats_server.NatsServer(Path({str(tmp_path)!r}), survives_exit=False); server.start()\n"
        "print(*[node.pid for node in cluster.nodes.values()], server.pid(), flush=True)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    pids = [int(pid) for pid in result.stdout.split()]
    try:
        assert result.returncode == 0, result.stderr
        assert len(pids) == 4
        assert running(pids) == [], "servers outlived the Python that started them"
    finally:
        for pid in running(pids):  # only if the test failed: they were started by our own child
            if "nats-server" in " ".join(nats_server.command_line(pid) or []):
                os.kill(pid, signal.SIGKILL)


# -- only the owner gets in: the checkout's token ----------------------------------------------------


def mode(path) -> int:
    return path.stat().st_mode & 0o777


async def connect_without_our_token(servers, **options):
    """A client as another account on this machine would be: it reaches 127.0.0.1, not our 0600 file."""
    return await nats.connect(servers=servers, connect_timeout=2, max_reconnect_attempts=0,
                              allow_reconnect=False, error_cb=broker._silent, **options)


def assert_refused(servers, **options):
    with pytest.raises(nats.errors.Error) as refused:
        broker.run(connect_without_our_token(servers, **options), timeout=30)
    assert "Authorization Violation" in str(refused.value), "refused by the server, not merely not reached"


def test_an_anonymous_client_is_refused_and_ours_gets_in(private_server):
    private_server.start()
    url = private_server.url()
    assert_refused([url])
    assert_refused([url], token="a-guess")
    assert_refused([url], user="course", password="course")
    broker.ensure_stream("T", ["t.>"], url=url)  # our client shows the token
    assert broker.count_messages("T", url=url) == 0

    assert mode(nats_server.token_file()) == 0o600
    assert mode(private_server.home) == 0o700, "its store, config and log are the owner's alone"
    assert mode(private_server.conf_file) == 0o600, "the config holds the token"
    assert nats_server.token() not in " ".join(nats_server.command_line(private_server.pid())), "not on a command line"


def test_a_server_started_by_an_earlier_version_is_restarted_asking_for_the_token(private_server, monkeypatch,
                                                                                  capfd):
    anyone_welcome = nats_server.SERVER_CONF.replace(nats_server.SERVER_CONF[nats_server.SERVER_CONF.index("authorization {"):
                                                                   nats_server.SERVER_CONF.index("jetstream {")], "")
    monkeypatch.setattr(nats_server, "SERVER_CONF", anyone_welcome)
    private_server.start()
    old_pid, url = private_server.pid(), private_server.url()
    nc = broker.run(connect_without_our_token([url]))  # as earlier versions ran it: open to every account
    broker.run(nc.close())
    monkeypatch.undo()

    assert private_server.start().startswith("started")
    said = capfd.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith(f"course: restarting the NATS server in {private_server.home}"), said
    assert private_server.pid() != old_pid and private_server.url() == url
    assert_refused([url])
    assert private_server.start().startswith("attached")


def test_every_node_of_a_cluster_refuses_anonymous_clients_and_anonymous_routes():
    with nats_cluster.Cluster.start(3) as cluster:
        for node in cluster.nodes.values():
            assert_refused([node.url])
            assert mode(node.conf_file) == 0o600
            # A server joining as a route would be sent every message: without the token it is refused.
            with socket.create_connection(("127.0.0.1", node.route_port), timeout=5) as route:
                reader = route.makefile("rb")
                assert reader.readline().startswith(b"INFO ")
                route.sendall(b'CONNECT {"verbose":false,"pedantic":false,"name":"intruder"}\r\nPING\r\n')
                assert b"Authorization Violation" in reader.readline()
        assert mode(cluster.home) == 0o700
        broker.ensure_stream("ORDERS", ["orders.>"], replicas=3, url=cluster.urls)  # ours still get in
        assert broker.count_messages("ORDERS", url=cluster.urls) == 0


def test_a_cluster_lets_in_only_its_own_token_not_another_clusters_nor_the_checkouts():
    """One notebook's cluster, one token (in class grading a notebook's consumer processes are handed their
    cluster's token): a client of another cluster, showing that cluster's token, is refused, and so is the
    checkout's token. This process's clients show each cluster its own."""
    with nats_cluster.Cluster.start(3, name="first") as first, nats_cluster.Cluster.start(3, name="second") as second:
        assert first.token != second.token
        assert_refused(second.urls, token=first.token)
        assert_refused(second.urls, token=nats_server.token())
        assert_refused(first.urls, token=second.token)
        for cluster in (first, second):
            nc = broker.run(connect_without_our_token(cluster.urls, token=cluster.token))
            broker.run(nc.close())
            broker.ensure_stream("MINE", ["mine.>"], replicas=3, url=cluster.urls)  # broker.connect shows its own
        assert nats_server.handed(second.urls) == {nats_server.TOKEN_ENV: second.token}
    assert nats_server.handed(first.urls) == {}  # a stopped cluster's urls ask for nothing of ours any more
