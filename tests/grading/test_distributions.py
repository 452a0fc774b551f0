"""Randomised answers judged as distributions (course/grading/distributions.py): the laws' shares, the
distance with ties and a point mass, the bounded false alarms, and what each test catches."""

from __future__ import annotations

import random

import pytest

from course.grading.distributions import Budget, Law, describe, edge_share, ks_epsilon


def test_a_floored_law_has_a_point_mass_at_its_floor():
    law = Law.uniform(0, 8).floored(5)
    assert (law.cdf_below(5), law.cdf(5), law.cdf(6), law.cdf(8), law.top, law.bottom) == (0, 0.625, 0.75, 1, 8, 5)
    assert Law.uniform(0, 8).floored(30).fixed and Law.uniform(0, 8).floored(30).said() == "exactly 30 s"
    assert Law.uniform(0, 8).floored(None) == Law.uniform(0, 8) and not Law.uniform(0, 8).fixed


def test_the_distance_counts_ties_together_and_sees_the_jump_at_the_floor():
    assert Law.uniform(0, 1).ks_distance([1.0] * 10) == 1.0  # every draw on the ceiling
    assert Law.uniform(0, 1).ks_distance([0.5] * 10) == 0.5
    rng = random.Random(1)
    floored = Law.uniform(0, 8).floored(5)
    assert floored.ks_distance([max(rng.uniform(0, 8), 5) for _ in range(2000)]) < 0.05  # ties on the floor: right
    assert floored.ks_distance([5.5] * 100) >= 0.625  # nothing on the floor, where 62.5 % belongs


@pytest.mark.parametrize("law", [Law.uniform(0, 1), Law.uniform(0, 300), Law.uniform(0, 8).floored(5)])
def test_draws_of_the_law_itself_fail_no_more_often_than_alpha(law):
    """At alpha = 5 %, 300 samples of the law itself: a bound that holds fails far fewer than 30 of them (the
    DKW bound is conservative); a seeded run, so this cannot flicker."""
    rng = random.Random(22)
    failures = sum(law.problem([max(rng.uniform(law.low, law.high), law.floor) for _ in range(200)], 0.05) is not None
                   for _ in range(300))
    assert failures <= 15


@pytest.mark.parametrize("draw, words", [
    (lambda rng: 1.0, "no wait came close to 0 s"),  # no jitter
    (lambda rng: 0.5 + rng.uniform(0, 0.5), "no wait came close to 0 s"),  # equal jitter
    (lambda rng: rng.uniform(0, 0.97), "no wait reached the top"),  # cut 3 % short
    (lambda rng: rng.uniform(0, 1) ** 2, "not spread evenly"),  # leaning to 0, both ends reached
])
def test_each_test_catches_its_kind_of_wrong_draws(draw, words):
    rng = random.Random(5)
    problem = Law.uniform(0, 1).problem([draw(rng) for _ in range(2000)], 1e-7)
    assert problem is not None and words in problem, problem


def test_the_bounds_are_the_stated_ones():
    assert ks_epsilon(2000, 1e-8) == pytest.approx(0.0683, abs=1e-3)
    assert (1 - edge_share(2000, 1e-8)) ** 2000 == pytest.approx(0.5e-8)
    assert Budget(1e-6, tests=20).alpha == pytest.approx(5e-8)
    assert Budget(1e-6, tests=20).said().endswith("less than once in 1,000,000 runs")


def test_places_in_the_law_are_even_for_its_own_draws():
    rng, places = random.Random(9), []
    for floor in (None, 0.0, 3.0, 20.0):
        law = Law.uniform(0, 8).floored(floor)
        places += [law.pit(max(rng.uniform(0, 8), law.floor), rng) for _ in range(3000)]
    assert Law.uniform(0, 1).ks_distance(places) < ks_epsilon(len(places), 1e-6)


def test_draws_are_described_in_seconds():
    assert describe([0.25, 1.0, 0.5]) == "3 waits from 0.25 to 1 s, mean 0.583 s"
