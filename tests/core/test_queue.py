"""The reference queue's operations, one statement at a time, against a real PostgreSQL."""

import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

from course.infra import db
from course.core import queue
from course.core.backoff import backoff_ceiling
from course.errors import InvalidArgument, InvalidJob


def count(conn, table="jobs"):
    return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_a_job_goes_in_is_claimed_once_and_acked_away(conn):
    job_id = queue.enqueue(conn, "send_receipt", {"order_id": 9812})
    job = queue.claim_one(conn, lease_s=5)
    assert (job.id, job.type, job.payload, job.attempts) == (job_id, "send_receipt", {"order_id": 9812}, 1)
    assert queue.claim_one(conn) is None, "a leased job must be hidden from other claims"
    assert queue.ack(conn, job) is True
    assert count(conn) == 0


def test_claim_takes_the_highest_priority_then_the_longest_due_then_the_first_stored(conn):
    """One rule, said by claim's docstring, its SQL and this test: priority, then run_at, then id; the
    batch comes back in that order too."""
    low = queue.enqueue(conn, "newsletter", {"n": 1}, priority=0)
    high = queue.enqueue(conn, "confirmation", {"n": 2}, priority=10)
    low_later = queue.enqueue(conn, "newsletter", {"n": 3}, priority=0)
    overdue = queue.enqueue(conn, "newsletter", {"n": 5}, priority=0,  # stored last, due first
                            run_at=datetime.now(timezone.utc) - timedelta(hours=1))
    later = queue.enqueue(conn, "scheduled", {"n": 4}, priority=99, delay_s=3600)
    assert [j.id for j in queue.claim(conn, limit=10)] == [high, overdue, low, low_later]
    assert later not in [j.id for j in queue.claim(conn, limit=10)]


def test_a_rolled_back_transaction_leaves_no_job(conn):
    with pytest.raises(RuntimeError):
        with conn.transaction():
            conn.execute("CREATE TABLE orders (id int)")
            queue.enqueue(conn, "send_receipt", {"order_id": 1})
            raise RuntimeError("payment declined after the insert")
    assert count(conn) == 0


def test_a_unique_key_admits_one_job_under_concurrent_enqueues(schema):
    barrier = threading.Barrier(16)
    results = []

    def producer():
        with db.connect(schema) as conn:
            barrier.wait()
            results.append(queue.enqueue(conn, "send_confirmation", {"booking_id": 981}, unique_key="confirm:981"))

    threads = [threading.Thread(target=producer) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = [r for r in results if r is not None]
    assert len(results) == 16 and len(stored) == 1, results


def test_a_zombie_cannot_ack_or_extend_a_job_claimed_again(conn, schema):
    job_id = queue.enqueue(conn, "render_invoice", {"booking_id": 7})
    zombie = queue.claim_one(conn, lease_s=0.2)
    time.sleep(0.5)  # the zombie's lease runs out while it is "still working"
    with db.connect(schema) as other:
        rescuer = queue.claim_one(other, lease_s=30)
    assert rescuer.id == job_id and rescuer.attempts == 2
    assert queue.extend_lease(conn, zombie, 30) is None
    assert queue.ack(conn, zombie) is False
    assert queue.fail(conn, zombie, RuntimeError("late")) is None
    assert count(conn) == 1, "the zombie must not delete the job the rescuer is running"
    assert queue.ack(conn, rescuer) is True


def test_heartbeat_keeps_a_long_job_hidden(conn, schema):
    queue.enqueue(conn, "sync_channel_manager", {"booking_id": 7})
    job = queue.claim_one(conn, lease_s=0.5)
    for _ in range(4):
        time.sleep(0.25)
        assert queue.extend_lease(conn, job, 0.5) is not None
    with db.connect(schema) as other:
        assert queue.claim_one(other) is None
    assert queue.ack(conn, job)


def test_batch_claim_extend_and_ack(conn):
    queue.enqueue_many(conn, "noop", [{"i": i} for i in range(10)])
    jobs = queue.claim(conn, limit=4, lease_s=5)
    assert len(jobs) == 4 and len({j.lease_token for j in jobs}) == 4
    assert queue.extend_leases(conn, jobs, 10) == {j.id for j in jobs}
    assert queue.ack_many(conn, jobs) == {j.id for j in jobs}
    assert count(conn) == 6


def test_concurrent_claims_never_hand_out_a_job_twice(schema):
    with db.connect(schema) as conn:
        queue.enqueue_many(conn, "noop", [{"i": i} for i in range(400)])
    claimed, barrier = [], threading.Barrier(20)

    def worker():
        with db.connect(schema) as conn:
            barrier.wait()
            while jobs := queue.claim(conn, limit=3, lease_s=60):
                claimed.extend(j.id for j in jobs)

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(claimed) == 400 and len(set(claimed)) == 400


def test_retries_reach_the_dead_letter_table_exactly_at_max_attempts(conn):
    queue.enqueue(conn, "send_email", {"booking_id": 1}, max_attempts=4)
    outcomes = []
    while job := queue.claim_one(conn, lease_s=5):
        outcomes.append(queue.fail(conn, job, RuntimeError("503 Service Unavailable"), backoff=lambda n: 0))
    assert [type(o).__name__ for o in outcomes] == ["Retry", "Retry", "Retry", "Dead"]
    [dead] = queue.dead_jobs(conn)
    assert (dead.reason, dead.attempts, dead.max_attempts) == ("max_attempts", 4, 4)
    assert "503" in dead.error and count(conn) == 0


def test_retry_waits_with_backoff(conn):
    queue.enqueue(conn, "send_email", {"booking_id": 1})
    job = queue.claim_one(conn)
    outcome = queue.fail(conn, job, RuntimeError("timeout"))
    assert 0 <= outcome.delay_s <= backoff_ceiling(1) == 1.0
    row = conn.execute("SELECT run_at - now(), lease_token, last_error FROM jobs").fetchone()
    assert row[0].total_seconds() <= 1.0 and row[1] is None and row[2] == "RuntimeError: timeout"


def test_a_permanent_error_goes_to_the_dead_letter_table_at_once(conn):
    queue.enqueue(conn, "send_email", {"booking_id": 1})
    job = queue.claim_one(conn)
    assert queue.fail(conn, job, queue.PermanentError("550 invalid address")) == queue.Dead("permanent")
    assert [d.reason for d in queue.dead_jobs(conn)] == ["permanent"]


def test_dead_lettering_alerts_listeners(conn, schema):
    with db.connect(schema) as listener:
        listener.execute(f'LISTEN "dead_jobs:{schema}"')
        queue.enqueue(conn, "send_email", {"booking_id": 1})
        queue.fail(conn, queue.claim_one(conn), queue.PermanentError("550 invalid address"))
        notes = list(listener.notifies(timeout=5, stop_after=1))
    assert notes and "550 invalid address" in notes[0].payload


def test_redrive_moves_dead_jobs_back_with_a_fresh_budget(conn):
    job_id = queue.enqueue(conn, "send_email", {"booking_id": 1}, max_attempts=1, unique_key="confirm:1")
    queue.fail(conn, queue.claim_one(conn), RuntimeError("down"))
    assert queue.redrive(conn) == [job_id]
    job = queue.claim_one(conn)
    assert (job.id, job.attempts) == (job_id, 1) and queue.dead_jobs(conn) == []


def test_redrive_keeps_a_dead_job_whose_key_is_taken_again(conn):
    queue.enqueue(conn, "send_email", {"booking_id": 1}, max_attempts=1, unique_key="confirm:1")
    queue.fail(conn, queue.claim_one(conn), RuntimeError("down"))
    queue.enqueue(conn, "send_email", {"booking_id": 1}, unique_key="confirm:1")
    assert queue.redrive(conn) == []
    assert len(queue.dead_jobs(conn)) == 1, "the dead job must not be lost"


def test_stats_show_depth_age_in_flight_and_dead_letters(conn):
    queue.enqueue_many(conn, "noop", [{"i": i} for i in range(5)])
    queue.enqueue(conn, "noop", {}, queue="emails", delay_s=60)
    queue.claim(conn, limit=2)
    time.sleep(0.05)
    stats = queue.stats(conn)
    default = stats.queue("default")
    assert (default.ready, default.in_flight, default.scheduled) == (3, 2, 0)
    assert stats.queue("emails").scheduled == 1
    assert default.oldest_ready_age_s > 0 and stats.depth == 6 and stats.dead_letters == 0


# -- bad input: a clear error, and nothing written -------------------------------------------------


@pytest.mark.parametrize("call, message", [
    (lambda c: queue.enqueue(c, "x'); DROP TABLE jobs; --", {}), "not a valid name"),
    (lambda c: queue.enqueue(c, "send", {}, queue="q; DELETE FROM jobs"), "not a valid name"),
    (lambda c: queue.enqueue(c, "send", '{"order_id": 98'), "payload must be a dict"),
    (lambda c: queue.enqueue(c, "send", {"blob": "x" * 70_000}), "Put ids in the job"),
    (lambda c: queue.enqueue(c, "send", {"when": object()}), "cannot be stored as JSON"),
    (lambda c: queue.enqueue(c, "send", {"ratio": float("nan")}), "cannot be stored as JSON"),
    (lambda c: queue.enqueue(c, "send", {}, max_attempts=0), "max_attempts must be"),
    (lambda c: queue.enqueue(c, "send", {}, delay_s=-1), "delay_s is in seconds"),
    (lambda c: queue.enqueue(c, "send", {}, unique_key=""), "unique_key must be"),
    (lambda c: queue.claim(c, lease_s=0), "lease_s is in seconds"),
    (lambda c: queue.claim(c, lease_s=-5), "lease_s is in seconds"),
    (lambda c: queue.enqueue_many(c, "send", [{"a": 1}, "oops"]), "payload number 1"),
])
def test_bad_input_is_refused_clearly_and_writes_nothing(conn, call, message):
    with pytest.raises((InvalidJob, InvalidArgument), match=message):
        call(conn)
    assert count(conn) == 0
    assert conn.execute("SELECT to_regclass('jobs')").fetchone()[0] is not None


def test_enqueue_on_a_closed_connection_says_so(schema):
    conn = db.connect(schema)
    conn.close()
    with pytest.raises(InvalidArgument, match="connection is closed"):
        queue.enqueue(conn, "send", {})


def test_errors_render_as_one_line_in_a_notebook():
    error = InvalidJob("payload is 68 KiB; the limit is 64 KiB.")
    assert error._render_traceback_() == ["InvalidJob: payload is 68 KiB; the limit is 64 KiB."]



# -- the edges: what a handler's error or a caller's argument may hold ---------------------------------


def expire_lease(conn, job_id):
    """Move time for one job: its lease ran out a second ago (no sleeping, whatever the machine's load)."""
    conn.execute("UPDATE jobs SET run_at = now() - interval '1 second' WHERE id = %s", [job_id])


def test_an_error_message_holding_nul_bytes_is_stored_on_retry_and_on_bury(conn):
    job_id = queue.enqueue(conn, "send_receipt", {"order_id": 1}, max_attempts=2)
    job = queue.claim_one(conn)
    assert isinstance(queue.fail(conn, job, RuntimeError("bad\x00byte")), queue.Retry)
    assert "\x00" not in conn.execute("SELECT last_error FROM jobs").fetchone()[0]
    expire_lease(conn, job_id)
    job = queue.claim_one(conn)
    try:
        raise RuntimeError("worse\x00byte")
    except RuntimeError as error:  # with a traceback, which repeats the message
        assert isinstance(queue.fail(conn, job, error), queue.Dead)
    [dead] = queue.dead_jobs(conn)
    assert "worse" in dead.error and "\x00" not in dead.error and "\x00" not in dead.traceback


def test_a_long_non_ascii_error_can_still_be_dead_lettered(conn, schema):
    queue.enqueue(conn, "send_receipt", {"order_id": 1})
    job = queue.claim_one(conn)
    with db.connect(schema) as listener:
        listener.execute(f'LISTEN "dead_jobs:{schema}"')
        assert isinstance(queue.fail(conn, job, "\N{GRINNING FACE}" * 2100, permanent=True), queue.Dead)
        [note] = list(listener.notifies(timeout=5, stop_after=1))
    assert len(note.payload.encode()) <= 8000 and note.payload.startswith(f"job {job.id} ")
    [dead] = queue.dead_jobs(conn)
    assert dead.error.startswith("\N{GRINNING FACE}")
    assert count(conn) == 0


def test_enqueue_given_both_a_delay_and_a_run_at_refuses_and_writes_nothing(conn):
    from datetime import datetime, timedelta, timezone

    with pytest.raises(InvalidArgument, match="delay_s or run_at.*Nothing was written"):
        queue.enqueue(conn, "send_receipt", {"order_id": 1}, delay_s=60,
                      run_at=datetime.now(timezone.utc) + timedelta(hours=1))
    assert count(conn) == 0


@pytest.mark.parametrize("limit", [-1, 0, "10", 1.5, True])
def test_dead_jobs_refuses_a_limit_that_is_not_a_positive_whole_number(conn, limit):
    with pytest.raises(InvalidArgument, match="limit"):
        queue.dead_jobs(conn, limit=limit)
    assert queue.dead_jobs(conn, limit=1) == []  # the connection is still usable


def test_claim_dead_letters_a_job_whose_last_attempt_never_reported_back(conn):
    job_id = queue.enqueue(conn, "render_invoice", {"booking_id": 7}, max_attempts=3)
    for attempt in (1, 2, 3):
        job = queue.claim_one(conn, lease_s=60)
        assert (job.id, job.attempts) == (job_id, attempt)
        expire_lease(conn, job_id)  # the worker died mid-job: nobody acks or fails, the lease runs out
    waiting = queue.enqueue(conn, "render_invoice", {"booking_id": 8})
    assert queue.claim_one(conn).id == waiting, "a spent job must be buried, and the claim go on to the next"
    [dead] = queue.dead_jobs(conn)
    assert (dead.id, dead.reason, dead.attempts, dead.max_attempts) == (job_id, "max_attempts", 3, 3)
    assert dead.error == queue.LAST_ATTEMPT_LOST


# -- lateness counts from when a job was due, not from when it was enqueued ------------------------------


def shift_back(conn, seconds, job_id=None):
    """Move time: every moment stored for the job(s) is `seconds` earlier (as if that time had passed)."""
    columns = [row[0] for row in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = 'jobs' AND data_type LIKE 'timestamp%'")]
    assignments = ", ".join(f"{c} = {c} - make_interval(secs => %(s)s)" for c in columns)
    where = "" if job_id is None else "WHERE id = %(id)s"
    conn.execute(f"UPDATE jobs SET {assignments} {where}", {"s": seconds, "id": job_id})


def test_a_delayed_job_is_not_late_the_moment_it_becomes_due(conn):
    queue.enqueue(conn, "send_reminder", {"booking_id": 7}, delay_s=3600)
    shift_back(conn, 3601)  # an hour passes: the job is due since a second ago
    assert queue.stats(conn).queue().oldest_ready_age_s == pytest.approx(1, abs=30)


def test_a_job_in_backoff_counts_as_late_from_when_it_was_first_due(conn):
    queue.enqueue(conn, "send_receipt", {"order_id": 1})
    job = queue.claim_one(conn)
    queue.fail(conn, job, "503", backoff=lambda attempt: 60.0)
    shift_back(conn, 600)  # ten minutes pass; the retry is due since nine
    assert queue.stats(conn).queue().oldest_ready_age_s == pytest.approx(600, abs=30)


def test_redrive_with_two_dead_jobs_sharing_a_unique_key_brings_back_the_newest(conn):
    """Found while writing the model test's redrive rule: the second insert broke the unique index, nothing moved."""
    dead = []
    for _ in range(2):
        dead.append(queue.enqueue(conn, "send_confirmation", {"booking_id": 981}, unique_key="confirm:981"))
        queue.bury(conn, queue.claim_one(conn), "permanent", "the provider said no")
    other = queue.enqueue(conn, "send_confirmation", {"booking_id": 982})
    queue.bury(conn, queue.claim_one(conn), "permanent", "the provider said no")
    assert sorted(queue.redrive(conn)) == [dead[1], other]
    assert [d.id for d in queue.dead_jobs(conn)] == [dead[0]]
    assert queue.redrive(conn) == [], "the older one stays while the newer one is unfinished"


def test_a_claimed_batch_comes_back_most_urgent_first(conn):
    """Shrunk from a model-test failure: UPDATE ... RETURNING had handed back [low, high]."""
    low = queue.enqueue_many(conn, "send_newsletter", [{"guest_id": 1}])[0]
    high = queue.enqueue(conn, "send_receipt", {"order_id": 1}, priority=1)
    other = queue.enqueue(conn, "send_newsletter", {"guest_id": 2})
    conn.execute("UPDATE jobs SET payload = payload WHERE id = %s", [high])  # high's row moves to the end
    # The plan decides RETURNING's order: force the hash or merge join a bigger jobs table gets.
    conn.execute("SET enable_nestloop = off")
    assert [job.id for job in queue.claim(conn, limit=3)] == [high, low, other]


# -- a worker's step: ack what finished and claim more, in one statement ---------------------------------


def test_ack_and_claim_acks_the_jobs_it_holds_and_claims_the_next_most_urgent(conn):
    ids = [queue.enqueue(conn, "noop", {"i": i}, priority=i % 3) for i in range(7)]
    done = queue.claim(conn, limit=2, lease_s=60)
    expected_next = [job.id for job in queue.claim(conn, limit=5, lease_s=60)]  # the order the claim gives
    conn.execute("UPDATE jobs SET run_at = now() - interval '1 second', lease_token = NULL WHERE id = ANY(%s)",
                 [expected_next])  # handed back: waiting again, in the same order
    acked, claimed = queue.ack_and_claim(conn, done, limit=3, lease_s=60)
    assert acked == {job.id for job in done}
    assert [job.id for job in claimed] == expected_next[:3]
    assert all(job.attempts == 2 and job.lease_token for job in claimed)
    assert count(conn) == len(ids) - 2


def test_ack_and_claim_acks_nothing_whose_lease_another_worker_holds_now(conn, schema):
    queue.enqueue(conn, "noop")
    zombie = queue.claim_one(conn, lease_s=60)
    expire_lease(conn, zombie.id)
    with db.connect(schema) as other:
        rescuer = queue.claim_one(other, lease_s=60)
    assert rescuer.id == zombie.id
    acked, claimed = queue.ack_and_claim(conn, [zombie], limit=5, lease_s=60)
    assert (acked, claimed) == (set(), [])
    assert count(conn) == 1, "the rescuer's job must stay"


def test_ack_and_claim_does_not_claim_again_a_job_it_acks_whose_lease_ran_out(conn):
    """An expired lease leaves the job visible; acked in the same statement, it must not take a slot of
    the claim (with one slot, the claim would come back empty though another job waits)."""
    queue.enqueue(conn, "noop", {"n": 1})
    late = queue.claim_one(conn, lease_s=60)
    waiting = queue.enqueue(conn, "noop", {"n": 2})
    expire_lease(conn, late.id)  # now the most urgent visible job
    acked, claimed = queue.ack_and_claim(conn, [late], limit=1, lease_s=60)
    assert acked == {late.id}
    assert [job.id for job in claimed] == [waiting]


def test_ack_and_claim_with_nothing_left_to_claim_still_says_what_it_acked(conn):
    queue.enqueue(conn, "noop")
    done = queue.claim(conn, limit=1, lease_s=60)
    assert queue.ack_and_claim(conn, done, limit=10, lease_s=60) == ({done[0].id}, [])
    assert count(conn) == 0


def test_ack_and_claim_dead_letters_a_spent_job_and_claims_on(conn):
    queue.enqueue(conn, "noop", {"n": 0})
    done = queue.claim(conn, limit=1, lease_s=60)
    spent = queue.enqueue(conn, "noop", {"n": 1}, max_attempts=1)
    queue.claim_one(conn, lease_s=60)
    expire_lease(conn, spent)  # its one attempt never reported back
    waiting = queue.enqueue(conn, "noop", {"n": 2})
    acked, claimed = queue.ack_and_claim(conn, done, limit=1, lease_s=60)
    assert acked == {done[0].id} and [job.id for job in claimed] == [waiting]
    assert [dead.id for dead in queue.dead_jobs(conn)] == [spent]
