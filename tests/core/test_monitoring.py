"""course.core.monitoring: lateness, alert conditions, the dashboard behind lab 11's widget, and the vacuum demo's
measurements, against a real PostgreSQL (the shared one, or a private one where a test holds a snapshot
open on purpose)."""

from __future__ import annotations

import time

import matplotlib
import psycopg
import pytest

from course.infra import db
from course.core import monitoring, queue
from course.programs import dead_rows, monitoring_view
from course.errors import InvalidArgument
from course.infra.processes import wait_until

matplotlib.use("Agg")


def age(conn, job_id: int, seconds: float) -> None:
    """The job was enqueued, and due, `seconds` ago."""
    conn.execute("UPDATE jobs SET created_at = now() - make_interval(secs => %(s)s), "
                 "due_at = now() - make_interval(secs => %(s)s) WHERE id = %(id)s", {"s": seconds, "id": job_id})


# -- how late each queue is ------------------------------------------------------------------------------


def test_oldest_waiting_counts_due_running_retrying_and_abandoned_jobs_but_not_future_ones(conn):
    waiting = queue.enqueue(conn, "a", {}, queue="ready")
    age(conn, waiting, 100)
    retrying = queue.enqueue(conn, "a", {}, queue="retrying")
    [job] = queue.claim(conn, "retrying")
    queue.fail(conn, job, "503", backoff=lambda attempt: 60.0)
    age(conn, retrying, 200)
    running = queue.enqueue(conn, "a", {}, queue="running")
    queue.claim(conn, "running", lease_s=30)
    age(conn, running, 300)
    abandoned = queue.enqueue(conn, "a", {}, queue="abandoned")
    queue.claim(conn, "abandoned", lease_s=0.01)
    age(conn, abandoned, 400)
    later = queue.enqueue(conn, "a", {}, queue="later", delay_s=3600)
    age(conn, later, 500)
    time.sleep(0.05)
    got = monitoring.oldest_waiting(conn)
    assert set(got) == {"ready", "retrying", "running", "abandoned"}
    for name, expected in (("ready", 100), ("retrying", 200), ("running", 300), ("abandoned", 400)):
        assert got[name] == pytest.approx(expected, abs=5), name


def test_oldest_waiting_counts_from_when_a_job_became_due_not_from_when_it_was_enqueued(conn):
    """Enqueued an hour ahead and due since ten seconds: ten seconds late, not an hour and ten seconds."""
    queue.enqueue(conn, "send_reminder", {"booking_id": 7}, queue="reminders", delay_s=3600)
    conn.execute("UPDATE jobs SET created_at = created_at - interval '3610 s', run_at = run_at - interval '3610 s', "
                 "due_at = due_at - interval '3610 s'")  # an hour and ten seconds pass
    assert monitoring.oldest_waiting(conn)["reminders"] == pytest.approx(10, abs=30)
    assert not [a for a in monitoring.evaluate(monitoring.snapshot(conn)) if a.condition.startswith("oldest job")]


def test_a_snapshot_reads_the_queue_stats_and_keeps_the_queues_asked_for(conn):
    with conn.transaction():  # inside a caller's transaction too
        assert monitoring.snapshot(conn).queues == ()
    queue.enqueue_many(conn, "a", [{}] * 3, queue="newsletter")
    [job] = queue.claim(conn, "newsletter")
    queue.bury(conn, job, "permanent", "no such mailbox")
    snap = monitoring.snapshot(conn, 1.5, queues=["receipts"])
    assert snap.at == 1.5
    assert [v.queue for v in snap.queues] == ["newsletter", "receipts"]
    assert snap.queue("newsletter").ready == 2 and snap.depth == 2
    assert snap.queue("receipts") == monitoring.QueueView("receipts", 0, 0, 0, 0.0)
    assert snap.dead_letters == 1


# -- alert conditions -----------------------------------------------------------------------------------


def snap(*views, dead_letters=0, dead_tuples=0):
    return monitoring.Snapshot(0.0, tuple(monitoring.QueueView(n, d, 0, 0, w) for n, d, w in views),
                               dead_letters, dead_tuples)


def test_the_oldest_job_condition_looks_at_age_not_depth():
    condition = monitoring.OldestJobOver(120)
    fired = condition.check(snap(("newsletter", 10_000, 30.0), ("receipts", 40, 720.0)))
    assert [(a.condition, a.subject) for a in fired] == [("oldest job over 2 min", "receipts")]
    assert "12 min" in fired[0].message
    assert condition.check(snap(("receipts", 40, 120.0))) == []  # "over" 2 minutes


def test_dead_letters_and_dead_tuples_are_separate_conditions():
    both = snap(("a", 1, 1.0), dead_letters=3, dead_tuples=250_000)
    assert [a.message for a in monitoring.DeadLetters().check(both)] == ["3 jobs in the dead-letter table"]
    assert monitoring.DeadLetters().check(snap(dead_tuples=250_000)) == []
    assert "250,000" in monitoring.DeadTuplesOver(100_000).check(both)[0].message
    alerts = monitoring.evaluate(both, [monitoring.OldestJobOver(0.5), monitoring.DeadLetters()])
    assert [a.subject for a in alerts] == ["a", "dead letters"]


def test_a_limit_must_be_positive_seconds():
    with pytest.raises(InvalidArgument, match="more than 0"):
        monitoring.OldestJobOver(0)


def test_durations_read_like_a_person_says_them():
    assert [monitoring.duration(s) for s in (0.42, 12, 120, 750, 3900)] == ["0.4 s", "12 s", "2 min", "12 min 30 s",
                                                                           "1 h 5 min"]


def test_littles_law_gives_the_material_s_two_and_twelve_minutes():
    assert monitoring.time_behind(4_000, 50, 1.5) == 120
    assert monitoring.time_behind(4_000, 50, 9.0) == 720
    with pytest.raises(InvalidArgument):
        monitoring.time_behind(4_000, 0, 1.5)


def test_text_and_html_show_every_queue_and_alert_and_escape_names():
    s = snap(("<b>", 3, 500.0), dead_letters=1)
    alerts = monitoring.evaluate(s)
    text = monitoring.render_text(s, alerts)
    assert "<b>" in text and "dead letters: 1" in text and text.count("  ! ") == 2
    html = monitoring.render_html(s, alerts)
    assert "&lt;b&gt;" in html and "<b>" not in html.replace("<b>1</b>", "").replace("<b>0</b>", "")


# -- the dashboard -----------------------------------------------------------------------------------------


def test_the_dashboard_refreshes_in_the_background_and_remembers_what_fired(conn, schema):
    board = monitoring_view.Dashboard(db.conninfo(schema), [monitoring.OldestJobOver(1.0), monitoring.DeadLetters()],
                                 every_s=0.1)
    board.widget()  # the ipywidgets panel works outside a notebook too
    board.start(show=False)
    try:
        job_id = queue.enqueue(conn, "a", {})
        age(conn, job_id, 30)
        wait_until(lambda: board.fired and len(board.history) >= 2, timeout=10, what="the alert, and a second look")
        assert board.running
    finally:
        board.stop()
    assert not board.running
    assert ("oldest job over 1.0 s", "default") in board.fired
    assert "30 s" in board.text()
    assert "the oldest job has waited" in board.widget().children[0].value
    assert board.fired_summary()[0].startswith("at ")
    fig = monitoring_view.plot_history(board.history, late_after_s=1.0)
    assert fig.axes[1].get_ylabel().startswith("oldest job")


def test_every_calls_until_stopped_and_raises_what_went_wrong():
    calls = []
    every = monitoring_view.Every(0.01, lambda: calls.append(1))
    wait_until(lambda: len(calls) >= 3, timeout=10)
    assert every.stop() >= 3

    def broken():
        raise RuntimeError("no database")

    failing = monitoring_view.Every(0.01, broken)
    wait_until(lambda: failing.error is not None, timeout=10)
    with pytest.raises(RuntimeError, match="no database"):
        failing.stop()


# -- dead tuples, the claim, and who holds back vacuum ----------------------------------------------------


def test_the_claim_cost_is_measured_without_claiming_anything(conn):
    queue.enqueue_many(conn, "a", [{}] * 50)
    cost = dead_rows.claim_cost(conn)
    assert cost.pages > 0 and cost.ms >= 0
    assert queue.stats(conn).queue().ready == 50


@pytest.mark.slow
def test_a_held_snapshot_is_named_as_the_blocker_and_keeps_vacuum_from_cleaning():
    """On a server of its own: in the shared one, any other test's (or notebook's) open snapshot holds
    back vacuum too, and "nothing left that vacuum could not remove" would not be ours to promise."""
    from course.infra.private_server import PrivateServer

    with PrivateServer(prefix="test-vacuum-") as server, \
            psycopg.connect(server.conninfo(), autocommit=True) as conn, \
            psycopg.connect(server.conninfo(), autocommit=True) as idle:
        queue.install(conn)
        queue.enqueue_many(conn, "a", [{}] * 200)
        with dead_rows.SnapshotHolder(server.conninfo()) as holder:
            conn.execute("DELETE FROM jobs")
            time.sleep(1.1)
            pids = [b.pid for b in dead_rows.vacuum_blockers(conn, older_than_s=1.0)]
            assert holder.pid in pids and idle.info.backend_pid not in pids
            kept = dead_rows.vacuum(conn)
            assert kept.not_yet_removable >= 200 and kept.removed == 0
        cleaned = dead_rows.vacuum(conn)
        assert cleaned.removed >= 200 and cleaned.not_yet_removable == 0
        assert "tuples:" in cleaned.verbose


def test_vacuum_refuses_a_table_name_that_is_not_a_plain_name(conn):
    with pytest.raises(InvalidArgument):
        dead_rows.vacuum(conn, "jobs; DROP TABLE jobs")


def test_summaries_keep_the_phases_in_order():
    samples = [dead_rows.ChurnSample(t, phase, dead, pages, pages / 100, 0, 0)
               for t, phase, dead, pages in [(0, "normal", 10, 20), (1, "normal", 30, 22), (2, "snapshot held", 5000, 300),
                                             (3, "snapshot held", 9000, 600), (4, "after VACUUM", 0, 21)]]
    summary = dead_rows.summarize(samples)
    assert [p.phase for p in summary] == ["normal", "snapshot held", "after VACUUM"]
    assert summary[1].dead_tuples_max == 9000 and summary[1].claim_pages_max == 600
    assert summary[0].claim_pages_median == 21
    assert dead_rows.plot_churn(samples).axes[0].get_ylabel() == "dead tuples in jobs"


@pytest.mark.slow
def test_churn_on_a_private_server_shows_the_claim_slowing_while_a_snapshot_is_held():
    from course.infra.private_server import PrivateServer

    with PrivateServer(prefix="test-churn-") as server:
        with psycopg.connect(server.conninfo(), autocommit=True) as admin:
            admin.execute("CREATE SCHEMA churn")
        churn = dead_rows.Churn(server.conninfo("churn"), "churn", dsn=server.conninfo(), rate_per_s=1500,
                                 sample_every_s=0.25)
        churn.start()
        try:
            churn.wait(2)
            with dead_rows.SnapshotHolder(server.conninfo("churn")):
                churn.phase = "snapshot held"
                churn.wait(3)
            churn.phase = "after VACUUM"
            churn.wait(0.5)
            # The workers finish jobs: a sample's `done` is an estimate (a batch committed but not yet counted
            # makes it negative), so ask the table, reading the count after the producer's tally.
            wait_until(lambda: _a_job_was_done(server, churn), 60, what="a job done by the workers")
        finally:
            churn.stop()
        assert all(not child.alive() for child in churn.workers)
    phases = {p.phase: p for p in dead_rows.summarize(churn.samples)}
    assert set(phases) == {"normal", "snapshot held", "after VACUUM"}
    assert phases["snapshot held"].claim_pages_max > 2 * phases["normal"].claim_pages_median
    assert churn.enqueued > 0


def _a_job_was_done(server, churn) -> bool:
    """Fewer jobs in the table than the producer had committed when we looked: a worker finished one (the
    producer counts a batch after its commit, so the table never holds fewer rows than that tally unless
    jobs left it)."""
    enqueued = churn.enqueued
    with psycopg.connect(server.conninfo("churn")) as conn:
        return conn.execute("SELECT count(*) FROM jobs").fetchone()[0] < enqueued
