"""Lab 10: a constant service time waits less than an exponential one, and a rush from empty waits
less than the long run (course/programs/service_shape.py)."""

from __future__ import annotations

import pytest

from course.errors import InvalidArgument
from course.programs import queueing_theory, service_shape


def test_the_simulation_with_exponential_service_lands_on_erlang_c():
    simulated = service_shape.long_run_wait(11, 4.0, 50, deterministic=False, seed=3).mean
    assert simulated == pytest.approx(queueing_theory.erlang_c(11, 4.0, 50).mean_wait, rel=0.25)


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
