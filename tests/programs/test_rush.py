"""course.programs.rush: Little's law measured on a real run (worker processes, the HTTP email provider).

The run is short (2 s of arrivals, 0.3 s per email) and the assertions compare measured numbers with
each other — L against λ × W from the same run — with room for a loaded machine.
"""

import math
import random

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from course.infra import db
from course.programs import pools, rush
from course.core import queue  # noqa: E402
from course.errors import InvalidArgument  # noqa: E402
from course.programs.email_provider import EmailProvider  # noqa: E402


def test_arrivals_are_seeded_and_random():
    times = rush.arrival_times(11, 60, seed=1)
    assert times == rush.arrival_times(11, 60, seed=1) != rush.arrival_times(11, 60, seed=2)
    assert all(0 < a < b < 60 for a, b in zip(times, times[1:]))
    assert 11 * 60 * 0.85 < len(times) < 11 * 60 * 1.15  # 660 expected, ± 4 standard deviations
    with pytest.raises(InvalidArgument):
        rush.arrival_times(0, 10, seed=1)


@pytest.mark.parametrize("jobs, start, end, expected", [
    ([], 0, 10, 0.0),
    ([(0, 2), (1, 3)], 0, 4, 1.0),
    ([(-5, 1)], 0, 2, 0.5),
    ([(1, 9)], 0, 2, 0.5),
    ([(3, 4)], 0, 2, 0.0),
])
def test_average_in_system_by_hand(jobs, start, end, expected):
    assert rush.average_in_system(jobs, start, end) == pytest.approx(expected)


def test_average_in_system_over_a_whole_run_is_littles_law():
    rng = random.Random(4)
    jobs = [(a, a + rng.uniform(0.5, 3)) for a in sorted(rng.uniform(0, 20) for _ in range(300))]
    end = max(left for _, left in jobs)
    w = sum(left - arrived for arrived, left in jobs) / len(jobs)
    assert rush.average_in_system(jobs, 0, end) == pytest.approx(len(jobs) / end * w, rel=1e-12)
    with pytest.raises(InvalidArgument):
        rush.average_in_system(jobs, 5, 5)


def test_counted_average_holds_each_sample_until_the_next():
    samples = [(0.0, 0), (1.0, 4), (3.0, 2), (4.0, 0)]
    assert rush.counted_average(samples, 0, 4) == pytest.approx((0 + 8 + 2) / 4)
    assert rush.counted_average(samples, 2, 3.5) == pytest.approx((4 + 1) / 1.5)


@pytest.fixture(scope="module")
def measured_rush(tmp_path_factory, database):
    schema = "t_rush_" + __import__("secrets").token_hex(3)
    db.reset_schema(schema)
    log = tmp_path_factory.mktemp("rush") / "log.jsonl"
    with db.connect(schema) as conn:
        queue.install(conn)
    provider = EmailProvider.start(latency_s=0.3)
    pool = pools.start(rush.APP, schema=schema, queues=["default"], concurrency=20,
                       env=rush.worker_env(provider.url, log))
    try:
        with db.connect(schema) as conn:
            yield rush.run(conn, arrival_rate=20, duration_s=2.0, log=log, seed=3), provider
    finally:
        pool.stop()
        provider.stop()
        db.drop_schema(schema)


@pytest.mark.slow
def test_a_real_rush_records_every_job_and_empties_the_queue(measured_rush):
    result, provider = measured_rush
    assert len(result.jobs) == len(rush.arrival_times(20, 2.0, seed=3))
    assert all(j.enqueued <= j.started <= j.finished for j in result.jobs)
    assert result.samples[0][1] <= 1 and result.samples[-1][1] == 0
    assert len(provider.deliveries()) == len(result.jobs)  # one real email per receipt


@pytest.mark.slow
def test_on_a_real_rush_l_is_lambda_times_w(measured_rush):
    result, _ = measured_rush
    numbers = rush.little(result)
    assert numbers.time_in_system >= 0.3  # the provider's latency is a floor
    # Counted every 0.1 s and acked a few ms after the work: a few percent apart, not more.
    assert numbers.in_system == pytest.approx(numbers.predicted, rel=0.15)
    assert math.isclose(numbers.arrival_rate, numbers.arrivals / numbers.seconds)


@pytest.mark.slow
def test_a_rush_too_short_for_a_plateau_is_refused(measured_rush):
    result, _ = measured_rush
    short = rush.Rush(result.arrival_rate, 0.2, result.jobs, result.samples)
    with pytest.raises(InvalidArgument, match="Run it longer"):
        rush.little(short)


def test_the_plot_shows_each_rush_and_its_plateau(measured_rush):
    result, _ = measured_rush
    ax = rush.plot([("0.3 s per email", result)], title="t")
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels[0] == "0.3 s per email: jobs-table count" and "plateau average" in labels[1]
    assert ax.get_xlabel() and ax.get_ylabel()
