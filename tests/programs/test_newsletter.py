"""course.programs.newsletter and course.programs.pools: lab 09's three layouts on real worker processes.

The runs are small (40 newsletter jobs of 0.02 s) and the assertions are about order — which job a
worker claimed before which — never about how many milliseconds something took.
"""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from course.infra import db, processes
from course.programs import newsletter, pools  # noqa: E402
from course.errors import InvalidArgument  # noqa: E402

BULK = 40


@pytest.fixture
def schema(database):
    name = "t_newsletter_" + __import__("secrets").token_hex(3)
    db.reset_schema(name)
    yield name
    db.drop_schema(name)


def run(schema, layout):
    return newsletter.run_layout(schema, layout, bulk_jobs=BULK, service_s=0.02, measure_bulk_s=0.5)


@pytest.mark.slow
def test_in_one_fifo_queue_the_confirmation_waits_for_the_whole_newsletter(schema):
    result = run(schema, "one queue, FIFO")
    # The newsletter was committed before the confirmation, and the claim takes the oldest first: only
    # the one newsletter job the other worker's claim held locked at that moment can come after it.
    assert result.newsletter_before >= BULK - 1
    assert result.newsletter_started == BULK
    assert result.bulk_throughput > 0 and result.confirmation_wait_s > 0


@pytest.mark.slow
def test_with_priorities_the_confirmation_is_claimed_before_the_newsletter(schema):
    """What the claim guarantees, whatever the scheduler does: once the confirmation is committed, no
    claim that begins later takes a newsletter job before it, except the other worker's one claim that
    found it locked by the worker taking it. (How many newsletter jobs were claimed before it arrived
    depends on how fast this process got from one enqueue to the next, so it is not asserted.)"""
    result = run(schema, "one queue, priorities")
    assert result.newsletter_overtaking <= result.workers - 1


@pytest.mark.slow
def test_with_two_queues_the_confirmation_has_a_worker_of_its_own(schema):
    """The layout's guarantee, from the recorded runs: the confirmation ran in its own queue, on a worker that
    ran nothing else, so no newsletter job can be ahead of it. (Counting newsletter jobs in the
    confirmation's queue, as this test once did, counted what the layout leaves empty.)"""
    run(schema, "two queues")
    with db.connect(schema) as conn:
        queues = dict(conn.execute("SELECT type, min(queue) FROM runs GROUP BY type").fetchall())
        workers = dict(conn.execute("SELECT type, array_agg(DISTINCT claimed_by) FROM runs GROUP BY type"))
    assert queues == {"send_newsletter": "bulk", "send_confirmation_email": "urgent"}
    assert len(workers["send_confirmation_email"]) == 1
    assert not set(workers["send_confirmation_email"]) & set(workers["send_newsletter"]), workers


@pytest.mark.slow
def test_every_worker_is_stopped_after_a_run(schema):
    run(schema, "two queues")

    def connections_left():
        with db.connect() as conn:
            return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE %s",
                                [f"{schema}-%"]).fetchone()[0]

    # A backend ends a moment after its client process has: wait for it, generously.
    processes.wait_until(lambda: connections_left() == 0, timeout=30, what="the workers' connections closed")


def test_an_unknown_layout_is_refused_with_the_names():
    with pytest.raises(InvalidArgument, match="one queue, FIFO"):
        newsletter.run_layout("nowhere", "three queues")


def test_the_impact_table_routes_the_material_s_jobs():
    urgent = {name for name, i in newsletter.IMPACT.items() if i.late_after_s <= newsletter.URGENT_WITHIN_S}
    assert urgent == {"send_confirmation_email", "send_password_reset", "sync_channel_manager"}
    lines = newsletter.describe_impact().splitlines()
    assert len(lines) == len(newsletter.IMPACT) and lines[0].startswith("send_confirmation_email")
    assert "late after      24 h" in lines[-1]


def test_predictions_and_the_plot_use_the_same_names():
    made = [newsletter.Measured(name, 240, 2, wait, 0, 240, 40.0, 0)
            for name, wait in (("one queue, FIFO", 6.0), ("one queue, priorities", 0.05), ("two queues", 0.0))]
    expected = newsletter.predicted(240, 40.0)
    assert set(expected) == set(newsletter.LAYOUTS)
    assert expected["one queue, FIFO"].urgent_wait == 6.0
    ax = newsletter.plot_waits(made)
    assert ax.get_xscale() == "log" and ax.get_title().startswith("A booking confirmation behind 240")


def test_a_pool_describes_itself_without_pids():
    pool = pools.Pool("s", ["a", "b", "c"], ["urgent", "bulk", "bulk"], [])
    assert pool.describe() == "3 worker processes (1 on 'urgent', 2 on 'bulk')"


@pytest.mark.slow
def test_a_pool_whose_app_does_not_load_says_so(database):
    with pytest.raises(pools.WorkersDidNotStart, match="exited"):
        pools.start("course.programs.newsletter:no_such_registry", schema="public", queues=["default"], ready_timeout=30)
