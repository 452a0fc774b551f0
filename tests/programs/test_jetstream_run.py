"""Lab 13's failover, as a test: the stream's leader SIGKILLed while a producer publishes and consumers
work. Nothing lost, nothing stored twice; the killed node comes back and catches up.

Every process is real: three nats-server nodes, a producer process, two consumer processes. They are
stopped whatever happens (the `with` block stops the cluster, the fixture kills the children). Times
are printed, never asserted: the election takes seconds, more on a loaded machine.
"""

import time
from datetime import datetime, timezone

import pytest

from course.infra import broker, nats_cluster, processes
from course.programs import jetstream_queue as jq
from course.programs import jetstream_run
from course.infra.processes import wait_until

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers

COUNT = 150


def confirm_booking(task):
    time.sleep(0.005)


def test_a_leader_killed_mid_work_loses_nothing_and_stores_nothing_twice(started):
    with nats_cluster.Cluster.start(3) as cluster:
        bookings = jq.WorkQueue("BOOKINGS", replicas=3, ack_wait_s=2.0, max_deliver=10)
        jq.reset(bookings, cluster.urls)
        history = jq.new_history("course-test-failover-")
        started += jetstream_run.spawn_consumers(bookings, confirm_booking, cluster.urls, 2, history=history)
        producer = jetstream_run.spawn_producer(cluster.urls, bookings.subject("confirm"), COUNT, rate_per_s=50,
                                     id_prefix="booking-", history=history)
        started.append(producer)

        jq.wait_for(history, "published", count=30, timeout=60)
        old_leader = cluster.leader_of(bookings.name)
        cluster.kill(old_leader)
        killed_at = datetime.now(timezone.utc)
        assert producer.wait(180) == 0, producer.log_tail(20)

        ids = [f"booking-{n}" for n in range(COUNT)]
        jq.wait_settled(history, ids, timeout=120, children=[*started])
        events = jq.read_history(history)
        published = [e for e in events if e.kind == "published"]
        stream = broker.stream_info(bookings.name, url=cluster.live_urls)
        outcome = jq.Outcome.of(events)

        assert stream.cluster.leader not in (None, old_leader)
        assert sorted(e.msg_id for e in published) == sorted(ids), "a publish was never acknowledged"
        assert len({e.seq for e in published}) == COUNT and stream.state.last_seq == COUNT, "stored twice"
        assert outcome.acked == set(ids), f"lost: {sorted(set(ids) - outcome.acked)[:5]}"
        assert any(e.kind == "publish_failed" for e in events), "the kill should have failed some publishes"

        elected = (stream.cluster.leader_since - killed_at).total_seconds()
        gap = max(b.t - a.t for a, b in zip(published, published[1:]))
        print(f"\n{stream.cluster.leader} elected {elected:.1f} s after {old_leader} was SIGKILLed; "
              f"longest publish gap {gap:.1f} s; {len(outcome.ran_more_than_once())} booking(s) ran twice")

        began = time.monotonic()
        cluster.restart(old_leader)
        wait_until(lambda: all(p.current for p in broker.stream_info(bookings.name, url=cluster.urls).cluster.replicas),
                   60, interval=0.1, what="the restarted node to catch up")
        print(f"{old_leader} back and current {time.monotonic() - began:.1f} s after its restart")
        node_pids = [node.pid for node in cluster.nodes.values()]
    assert not any(processes.pid_alive(pid) for pid in node_pids), "a node outlived the cluster's with block"
