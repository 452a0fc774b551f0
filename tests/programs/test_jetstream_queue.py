"""course.programs.jetstream_queue: the course's queue ideas on JetStream, with real consumer processes.

One private single-node server for the whole module (the queue's behaviour does not need three nodes:
tests/programs/test_jetstream_failover.py kills a leader). Each test has queues of its own. Deadlines are generous;
measured times are compared with what the consumer's settings promise, with room for a loaded machine.
"""

import os
import sys
import time

import nats.errors
import pytest

from course.infra import broker, nats_server, nats_cluster, processes
from course.programs import jetstream_bench
from course.programs import jetstream_consumer
from course.programs import jetstream_queue as jq
from course.programs import jetstream_run, jetstream_view
from course.errors import InvalidArgument, PermanentError
from course.infra.processes import wait_until

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    server = nats_server.NatsServer(tmp_path_factory.mktemp("nats"), survives_exit=False)
    server.start()
    yield [server.url()]
    server.stop()


def a_queue(servers, name, **settings) -> jq.WorkQueue:
    queue = jq.WorkQueue(name, replicas=1, **settings)
    jq.reset(queue, servers)
    return queue


def publish(servers, queue, payloads):
    with jq.Publisher(servers, timeout=5) as publisher:
        return [publisher.publish(queue.subject("job"), payload, msg_id=msg_id) for msg_id, payload in payloads.items()]


# -- handlers (they travel to the consumer processes by value) ----------------------------------------


def quick(task):
    time.sleep(0.01)


def slow_with_heartbeat(task):
    for _ in range(4):
        time.sleep(0.25)
        task.in_progress()


def slow_without_heartbeat(task):
    time.sleep(1.0)


def provider_on_a_bad_day(task):
    kind = task.data["kind"]
    if kind == "503":
        raise ConnectionError("503 Service Unavailable")
    if kind == "invalid":
        raise PermanentError("550 no such mailbox")
    if kind == "hang":
        time.sleep(60)


async def async_quick(task):
    task.in_progress()


# -- the shape of a queue ----------------------------------------------------------------------------


def test_settings_that_jetstream_would_refuse_are_refused_here_with_the_reason():
    with pytest.raises(InvalidArgument, match="at least the number of backoff values"):
        jq.WorkQueue("Q", backoff_s=(1, 2, 4), max_deliver=2)
    with pytest.raises(InvalidArgument, match="stream name"):
        jq.WorkQueue("no spaces")
    with pytest.raises(InvalidArgument, match="replicas"):
        jq.WorkQueue("Q", replicas=0)
    queue = jq.WorkQueue("EMAILS", backoff_s=(1, 2, 4), max_deliver=8)
    assert [queue.wait_after(n) for n in (1, 2, 3, 4, 8)] == [1, 2, 4, 4, 4]
    assert jq.WorkQueue("Q", ack_wait_s=30).wait_after(3) == 30
    assert queue.subject("confirm") == "emails.confirm" and queue.dead_stream == "EMAILS_DEAD"


def test_waiting_for_messages_that_never_settle_says_which_and_what_happened(tmp_path):
    history = str(tmp_path / "history.jsonl")
    jq.record(history, who="producer", kind="published", seq=1, msg_id="booking-1")
    jq.record(history, who="producer", kind="published", seq=2, msg_id="booking-2")
    jq.record(history, who="consumer0", kind="received", seq=1, msg_id="booking-1", deliveries=1)
    jq.record(history, who="consumer0", kind="finished", seq=1, msg_id="booking-1", deliveries=1)
    jq.record(history, who="consumer0", kind="acked", seq=1, msg_id="booking-1", deliveries=1)
    gone = processes.spawn("producer", [sys.executable, "-c", "raise SystemExit('gave up on booking-2')"])
    gone.wait(60)
    with pytest.raises(TimeoutError) as raised:
        jq.wait_settled(history, ["booking-1", "booking-2"], timeout=0.5, children=[gone])
    message = str(raised.value)
    assert "1 of 2 messages are neither acknowledged nor dead-lettered: ['booking-2']" in message
    assert "what happened to booking-2:" in message and "published" in message
    assert "producer exited (code 1)" in message and "gave up on booking-2" in message
    jq.record(history, who="consumer0", kind="dead_lettered", seq=2, msg_id="booking-2")
    jq.wait_settled(history, ["booking-1", "booking-2"], timeout=5)


def test_reset_creates_a_work_queue_and_empties_it_when_run_again(servers):
    queue = a_queue(servers, "RESET", ack_wait_s=5)
    publish(servers, queue, {"a": {"n": 1}})
    assert broker.count_messages("RESET", url=servers) == 1
    jq.reset(queue, servers)
    info = broker.stream_info("RESET", url=servers)
    assert info.state.messages == 0 and info.config.retention == "workqueue"
    assert broker.count_messages("RESET_DEAD", url=servers) == 0


# -- consuming -----------------------------------------------------------------------------------------


def test_every_message_is_handled_and_acknowledged_once_and_leaves_the_stream(servers, started):
    queue = a_queue(servers, "BASIC", ack_wait_s=5)
    history = jq.new_history()
    started += jetstream_run.spawn_consumers(queue, quick, servers, 2, history=history)
    ids = [f"m{n}" for n in range(20)]
    publish(servers, queue, {msg_id: {"n": n} for n, msg_id in enumerate(ids)})
    wait_until(lambda: jq.settled(history, ids), 30, interval=0.1)
    outcome = jq.Outcome.of(jq.read_history(history))
    assert outcome.acked == set(ids) and set(outcome.executions.values()) == {1}
    wait_until(lambda: broker.count_messages("BASIC", url=servers) == 0, 10, what="acked messages to leave")
    assert jq.consumer_state(queue, servers)["in_flight"] == 0


def test_a_killed_consumers_message_comes_back_after_the_ack_wait(servers, started):
    queue = a_queue(servers, "KILLED", ack_wait_s=0.6)
    history = jq.new_history()
    consumers = jetstream_run.spawn_consumers(queue, slow_without_heartbeat, servers, 2, history=history)
    started += consumers
    publish(servers, queue, {"order-9812": {"order_id": 9812}})
    first = jq.wait_for(history, "received", "order-9812")
    next(c for c in consumers if c.pid == first.pid).kill()
    done = jq.wait_for(history, "acked", "order-9812", timeout=30)
    second = jq.wait_for(history, "received", "order-9812", count=2)
    assert done.deliveries == 2 and done.pid != first.pid
    assert 0.5 <= second.t - first.t <= 10, "redelivered after about the AckWait"


def test_in_progress_acks_decide_whether_a_slow_message_runs_twice(servers, started):
    """The same 1 s job on two queues at once: one handler heartbeats, the other stays silent."""
    runs = {}
    for name, handler, ack_wait in (("HEARTBEAT", slow_with_heartbeat, 0.6), ("SILENT", slow_without_heartbeat, 0.4)):
        queue = a_queue(servers, name, ack_wait_s=ack_wait)
        runs[name] = jq.new_history()
        started.extend(jetstream_run.spawn_consumers(queue, handler, servers, 2, history=runs[name]))
        publish(servers, queue, {"slow": {}})
    for history in runs.values():
        wait_until(lambda: jq.settled(history, ["slow"]), 30, interval=0.1)
    with_heartbeat = jq.read_history(runs["HEARTBEAT"])
    assert jq.Outcome.of(with_heartbeat).deliveries == {"slow": 1}
    assert sum(e.kind == "in_progress" for e in with_heartbeat) == 4
    assert jq.Outcome.of(jq.read_history(runs["SILENT"])).ran_more_than_once() == ["slow"]


def test_an_async_handler_runs_on_the_consumers_loop(servers, started):
    queue = a_queue(servers, "ASYNC", ack_wait_s=5)
    history = jq.new_history()
    started += jetstream_run.spawn_consumers(queue, async_quick, servers, 1, history=history)
    publish(servers, queue, {f"a{n}": {} for n in range(5)})
    wait_until(lambda: jq.settled(history, [f"a{n}" for n in range(5)]), 30, interval=0.1)


# -- retries and dead letters ------------------------------------------------------------------------


def test_failures_retry_on_the_backoff_schedule_then_reach_the_dead_letter_stream(servers, started):
    queue = a_queue(servers, "RETRIES", backoff_s=(0.2, 0.4, 0.8), max_deliver=4)
    history = jq.new_history()
    started += jetstream_run.spawn_consumers(queue, provider_on_a_bad_day, servers, 2, history=history)
    publish(servers, queue, {"b503": {"kind": "503"}, "bad-address": {"kind": "invalid"}})
    wait_until(lambda: len(jq.dead_letters(queue, servers)) == 2, 30, interval=0.1)
    dead = {d.msg_id: d for d in jq.dead_letters(queue, servers)}
    assert (dead["b503"].reason, dead["b503"].deliveries) == ("max_deliveries", 4)
    assert dead["b503"].error == "ConnectionError: 503 Service Unavailable"
    assert (dead["bad-address"].reason, dead["bad-address"].deliveries) == ("permanent", 1)
    received = [e.t for e in jq.read_history(history) if e.msg_id == "b503" and e.kind == "received"]
    waits = [b - a for a, b in zip(received, received[1:])]
    # The steps themselves, exactly, as the server holds them: the timings below cannot tell a step a
    # quarter short from a slow delivery.
    assert jq.consumer_state(queue, servers)["backoff_s"] == (0.2, 0.4, 0.8)
    # The server redelivers `scheduled` seconds after it sent the last delivery; we see the gap between two
    # receipts, each late by its own delivery latency, which a loaded machine inflates (0.349 s seen for a
    # 0.4 s step at load 11). So: each gap at least three quarters of its step (no BackOff would give ~0),
    # and not much longer.
    for waited, scheduled in zip(waits, (0.2, 0.4, 0.8)):
        assert scheduled * 0.75 <= waited <= scheduled + 2.0, f"waits {waits} do not follow the BackOff"
    wait_until(lambda: broker.count_messages("RETRIES", url=servers) == 0, 10, what="dead letters gone from the queue")


def test_a_hung_handler_is_dead_lettered_through_the_max_deliveries_advisory(servers, started):
    queue = a_queue(servers, "HUNG", backoff_s=(0.3, 0.3), max_deliver=2)
    history = jq.new_history()
    started += jetstream_run.spawn_consumers(queue, provider_on_a_bad_day, servers, 2, history=history)
    publish(servers, queue, {"hang": {"kind": "hang"}})
    wait_until(lambda: jq.dead_letters(queue, servers), 30, interval=0.1, what="the advisory to be routed")
    [dead] = jq.dead_letters(queue, servers)
    assert (dead.msg_id, dead.reason, dead.deliveries) == ("hang", "max_deliveries", 2)
    assert "never acknowledged" in dead.error
    # The router stores the dead letter, then deletes the original, then writes its history line: wait
    # for the line (the dead letter alone can be seen a moment before the rest).
    wait_until(lambda: any(e.kind == "routed" for e in jq.read_history(history)), 30, interval=0.1,
               what="the router to record the routing")
    assert broker.count_messages("HUNG", url=servers) == 0


def test_the_router_catches_up_on_advisories_sent_while_it_was_down(servers, started):
    """The advisories stream keeps them: nobody listening is no longer nobody told."""
    queue = a_queue(servers, "LATE", backoff_s=(0.3,), max_deliver=1)
    settings = jetstream_consumer.ConsumerSettings(route_dead_letters=False)
    history = jq.new_history()
    started += jetstream_run.spawn_consumers(queue, provider_on_a_bad_day, servers, 1, history=history, settings=settings)
    publish(servers, queue, {"hang": {"kind": "hang"}})
    wait_until(lambda: broker.count_messages("LATE_ADVISORIES", url=servers) == 1, 30, interval=0.1)
    assert jq.dead_letters(queue, servers) == []
    started += jetstream_run.spawn_consumers(queue, quick, servers, 1, name="router")  # routes by default
    wait_until(lambda: jq.dead_letters(queue, servers), 30, interval=0.1, what="the late router to catch up")


def test_redrive_stores_new_messages_where_the_original_id_would_be_dropped(servers, started):
    queue = a_queue(servers, "REDRIVE", backoff_s=(0.2,), max_deliver=1)
    history = jq.new_history()
    failing = jetstream_run.spawn_consumers(queue, provider_on_a_bad_day, servers, 1, history=history)
    started += failing
    publish(servers, queue, {"b981": {"kind": "503"}})
    wait_until(lambda: jq.dead_letters(queue, servers), 30, interval=0.1)
    failing[0].terminate(10)
    [ack] = publish(servers, queue, {"b981": {"kind": "fixed"}})
    assert ack.duplicate, "the original id within the duplicate window is taken for the same message"
    moved = jq.redrive(queue, servers)
    assert len(moved) == 1 and jq.dead_letters(queue, servers) == []
    [message] = broker.messages("REDRIVE", url=servers)
    assert message.headers["Nats-Msg-Id"].startswith("redrive:") and message.headers["Redriven-From-Msg-Id"] == "b981"
    assert jq.redrive(queue, servers) == []  # nothing left to move


def test_sigterm_lets_the_running_message_finish_then_the_consumer_exits(servers, started):
    queue = a_queue(servers, "DRAIN", ack_wait_s=10)
    history = jq.new_history()
    [consumer] = jetstream_run.spawn_consumers(queue, slow_without_heartbeat, servers, 1, history=history)
    started.append(consumer)
    publish(servers, queue, {"slow": {}})
    jq.wait_for(history, "received", "slow")
    assert consumer.terminate(20) == 0
    assert "slow" in jq.Outcome.of(jq.read_history(history)).acked


# -- publishing ----------------------------------------------------------------------------------------


def test_publish_with_retry_keeps_the_id_and_the_stream_keeps_one_copy(servers):
    queue = a_queue(servers, "RETRYPUB", ack_wait_s=5)
    calls = []
    with jq.Publisher(servers) as publisher:
        def ack_lost_once(subject, payload, msg_id=None):
            calls.append(msg_id)
            ack = publisher.publish(subject, payload, msg_id=msg_id)
            if len(calls) == 1:
                raise nats.errors.TimeoutError  # stored, but we never hear it
            return ack

        ack = jq.publish_with_retry(ack_lost_once, queue.subject("job"), {"n": 1}, "order-1")
    assert calls == ["order-1", "order-1"] and ack.duplicate
    assert broker.count_messages("RETRYPUB", url=servers) == 1


def test_publish_with_retry_gives_up_with_the_last_error():
    def down(subject, payload, msg_id=None):
        raise nats.errors.NoRespondersError

    started = time.monotonic()
    with pytest.raises(nats.errors.NoRespondersError):
        jq.publish_with_retry(down, "x.y", {}, "id", give_up_after_s=0.5)
    assert time.monotonic() - started < 5


def test_a_producer_process_publishes_every_message_with_its_id(servers, started):
    queue = a_queue(servers, "PRODUCED", ack_wait_s=5)
    history = jq.new_history()
    producer = jetstream_run.spawn_producer(servers, queue.subject("job"), 30, rate_per_s=200, id_prefix="p-", history=history)
    started.append(producer)
    assert producer.wait(30) == 0
    published = [e for e in jq.read_history(history) if e.kind == "published"]
    assert [e.msg_id for e in published] == [f"p-{n}" for n in range(30)]
    assert broker.count_messages("PRODUCED", url=servers) == 30


def speaks_as_the_other(task):
    """A handler that writes into its consumer's history that a message was acked, as consumer1 with pid 1."""
    import sys

    from course.infra import eventlog, processes

    history = processes.unpickle(sys.argv[2])["history"]  # python -m course.programs.jetstream_run consume SPEC WHO
    eventlog.record(history, who="consumer1", pid=1, kind="acked", msg_id=f"forged-by-{sys.argv[3]}")


def test_a_kept_history_takes_a_consumers_lines_as_its_own_and_nothing_from_the_exchange_folder(
        servers, started, tmp_path, monkeypatch):
    """A check keeps its consumers' history (eventlog.Kept, kept=): a handler's line lands with the name and
    pid of the consumer that wrote it, whatever it says, and another process that appends to every history in
    the exchange folder (the notebook's, in class grading) adds nothing. The notebook's own history
    (jq.new_history, a file there) takes both forgeries: why a check never judges from one."""
    import json
    import threading

    from course.infra import eventlog

    exchange = tmp_path / "exchange"
    monkeypatch.setenv("COURSE_EXCHANGE_DIR", str(exchange))
    stop = threading.Event()
    forged = json.dumps({"t": 0.0, "pid": 1, "who": "consumer1", "kind": "acked", "msg_id": "forged-in-the-folder"})

    def forge() -> None:
        while not stop.wait(0.01):
            for path in exchange.rglob("*.jsonl"):
                with open(path, "a") as out:
                    out.write(forged + "\n")

    kept, own = eventlog.Kept("course-test-kept-"), jq.new_history("course-test-own-")
    forger = threading.Thread(target=forge, daemon=True)
    forger.start()
    try:
        queues = {name: a_queue(servers, name, ack_wait_s=5) for name in ("KEPT", "OWN")}
        [judged] = jetstream_run.spawn_consumers(queues["KEPT"], speaks_as_the_other, servers, 1, history=kept.path,
                                                 name="judged", kept=[kept])
        [notebooks] = jetstream_run.spawn_consumers(queues["OWN"], speaks_as_the_other, servers, 1, history=own,
                                                    name="notebooks")
        started += [judged, notebooks]
        for queue in queues.values():
            publish(servers, queue, {"m": {"n": 1}})
        wait_until(lambda: jq.settled(kept.path, ["m"]) and jq.settled(own, ["m"]), 60, interval=0.1)
        wait_until(lambda: any(e.msg_id == "forged-in-the-folder" for e in jq.read_history(own)), 60, interval=0.05)
    finally:
        stop.set()
        forger.join()
    events = kept.read(jq.Event)
    said = [e for e in events if e.msg_id == "forged-by-judged0"]
    assert said and {(e.who, e.pid) for e in said} == {("judged0", judged.pid)}, said
    assert {(e.who, e.pid) for e in events} == {("judged0", judged.pid)}, events
    assert "m" in jq.Outcome.of(events).acked
    theirs = jq.read_history(own)
    assert {"forged-by-notebooks0", "forged-in-the-folder"} <= {e.msg_id for e in theirs if e.pid == 1}
    judged.kill()
    kept.close()
    for path in (kept.path, own):
        os.unlink(path)


# -- history and views ---------------------------------------------------------------------------------


def test_outcome_and_timeline_read_a_history_that_a_kill_cut_short(tmp_path):
    history = tmp_path / "h.jsonl"
    lines = [
        '{"t": 1.0, "who": "consumer0", "pid": 1, "kind": "received", "msg_id": "a", "deliveries": 1}',
        '{"t": 3.0, "who": "consumer1", "pid": 2, "kind": "received", "msg_id": "a", "deliveries": 2}',
        '{"t": 3.5, "who": "consumer1", "pid": 2, "kind": "finished", "msg_id": "a", "deliveries": 2}',
        '{"t": 3.5, "who": "consumer1", "pid": 2, "kind": "acked", "msg_id": "a", "deliveries": 2}',
        '{"t": 3.6, "who": "cons',  # the process died mid-line
    ]
    history.write_text("\n".join(lines))
    events = jq.read_history(history)
    outcome = jq.Outcome.of(events)
    assert outcome.deliveries == {"a": 2} and outcome.executions == {"a": 1} and outcome.acked == {"a"}
    text = jq.timeline(events, "a")
    assert "0.00 s  consumer0" in text and "received (delivery 2)" in text and "acked" in text


def test_drains_measure_both_queues(servers, schema):
    """Tiny drains: the functions the lab's throughput cells call run end to end."""
    postgres = jetstream_bench.drain_postgres(schema, 300, workers=1, concurrency=8)
    jetstream = jetstream_bench.drain_jetstream(servers, 300, replicas=1, consumers=1, concurrency=32)
    assert postgres.jobs == jetstream.jobs == 300 and postgres.rate > 0 and jetstream.rate > 0
    assert jetstream_bench.publish_latency(servers, 1, jobs=20) > 0
    assert jetstream_bench.enqueue_latency_postgres(schema, jobs=20) > 0
    assert processes.log_dir().exists()


def test_the_cluster_view_names_the_leader_and_the_dead():
    def roles(cluster):
        return {row.node: row.role for row in jetstream_view.cluster_rows(cluster, "VIEW")}

    with nats_cluster.Cluster.start(3) as cluster:
        broker.ensure_stream("VIEW", ["view.>"], replicas=3, url=cluster.urls)
        leader = cluster.leader_of("VIEW")
        # Right after creation a follower may still be catching up: wait for the settled picture.
        wait_until(lambda: sorted(roles(cluster).values()) == ["follower", "follower", "leader"], 30, interval=0.1,
                   what="one leader and two current followers")
        assert roles(cluster)[leader] == "leader"
        cluster.kill(leader)
        assert roles(cluster)[leader] == "down"
        assert "down" in jetstream_view.cluster_html(jetstream_view.cluster_rows(cluster, "VIEW"))
        assert jetstream_bench.footprint(cluster).processes == 2
        assert jetstream_bench.sync_interval_s(cluster) > 0
