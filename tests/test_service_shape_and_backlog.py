"""Lab 10's new arithmetic and simulations: a constant service time waits less than an exponential one
(course/programs/service_shape.py), a rush from empty waits less than the long run, and the fluid
arithmetic of a backlog that grows and drains (course/programs/backlog.py)."""

from __future__ import annotations

import pytest

from course.errors import InvalidArgument
from course.programs import backlog, queueing, service_shape


def test_the_simulation_with_exponential_service_lands_on_erlang_c():
    simulated = service_shape.long_run_wait(11, 4.0, 50, deterministic=False, seed=3).mean
    assert simulated == pytest.approx(queueing.erlang_c(11, 4.0, 50).mean_wait, rel=0.25)


def test_constant_service_waits_about_half_of_exponential_service():
    exponential = service_shape.long_run_wait(11, 4.0, 50, deterministic=False, seed=3).mean
    constant = service_shape.long_run_wait(11, 4.0, 50, deterministic=True, seed=3).mean
    assert 0.35 < constant / exponential < 0.7


def test_one_server_constant_service_matches_pollaczek_khinchine():
    # M/D/1: Wq = ρ S / (2 (1 - ρ)); at ρ = 0.5 and S = 1, 0.5 s
    assert service_shape.long_run_wait(0.5, 1.0, 1, deterministic=True, customers=400_000).mean == pytest.approx(0.5, rel=0.08)


def test_a_short_run_from_empty_waits_less_than_the_long_run():
    short = service_shape.short_run_wait(11, 4.0, 50, seconds=8, runs=50).mean
    assert short < service_shape.long_run_wait(11, 4.0, 50, deterministic=True).mean / 2


def test_waits_for_replays_given_arrivals():
    assert service_shape.waits_for([0.0, 0.0, 0.0, 1.5], 1.0, 2) == [0.0, 0.0, 1.0, 0.0]
    with pytest.raises(InvalidArgument):
        service_shape.simulate(1, 1, 1, deterministic=True)  # neither customers nor seconds


def test_the_backlog_arithmetic_grows_and_drains_at_the_differences():
    phases = [backlog.Phase(2, 0.3), backlog.Phase(5, 0.8), backlog.Phase(6, 0.3)]
    peak, empty = backlog.peak_and_drain(11, 5, phases)
    assert peak == pytest.approx((11 - 5 / 0.8) * 5, rel=0.01)               # 23.75 at 7 s
    assert empty == pytest.approx(7 + peak / (5 / 0.3 - 11), abs=0.05)     # drained about 4.2 s later


def test_no_backlog_when_capacity_always_exceeds_arrivals():
    assert backlog.peak_and_drain(11, 5, [backlog.Phase(3, 0.3)])[0] == 0


def test_a_phase_of_no_length_is_refused():
    with pytest.raises(InvalidArgument):
        backlog.predicted(11, 5, [backlog.Phase(0, 0.3)])


def test_little_on_a_window_counts_whole_stays_against_stays_clipped_to_it():
    from course.programs import little_window, rush

    # three jobs of 2 s, arriving at 0, 1 and 2; the count is sampled every 0.5 s
    jobs = [rush.JobTimes(n, float(n), float(n), float(n) + 2) for n in range(3)]
    samples = [(t / 2, sum(j.enqueued <= t / 2 < j.finished for j in jobs)) for t in range(9)]
    run = rush.Rush(1.0, 3.0, jobs, samples)
    whole = little_window.on_window(run, 0, 4)  # from empty to empty: the law is exact
    assert whole.whole_stays == pytest.approx(1.5) == whole.clipped == pytest.approx(whole.counted)
    early = little_window.on_window(run, 0, 1)  # one job arrived, its stay runs past the window
    assert (early.arrivals, early.whole_stays, early.clipped) == (1, 2.0, 1.0)
