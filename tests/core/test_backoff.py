"""How long a failed job waits (course.core.backoff): a ceiling that doubles from `base` up to `cap`, and a
wait drawn evenly below it ("full jitter"). No database: the arithmetic alone."""

import random

import pytest

from course.core.backoff import BASE_S, CAP_S, MAX_ATTEMPTS, backoff_ceiling, backoff_delay


def test_the_ceiling_doubles_from_the_base_and_stops_at_the_cap():
    assert [backoff_ceiling(n) for n in range(1, 11)] == [1, 2, 4, 8, 16, 32, 64, 128, 256, CAP_S]
    assert backoff_ceiling(10_000) == CAP_S  # no overflow, however many attempts
    assert backoff_ceiling(3, base=0.5, cap=1.5) == 1.5 and backoff_ceiling(2, base=0.5, cap=1.5) == 1.0


def test_the_defaults_wait_at_most_127_s_in_all_over_eight_attempts():
    assert BASE_S == 1.0 and MAX_ATTEMPTS == 8
    assert sum(backoff_ceiling(n) for n in range(1, MAX_ATTEMPTS)) == 127


def test_attempts_count_from_one():
    with pytest.raises(ValueError, match="attempt counts from 1"):
        backoff_ceiling(0)


def test_a_wait_is_drawn_evenly_from_zero_to_the_ceiling_and_a_seed_repeats_it():
    waits = [backoff_delay(4, rng=random.Random(seed)) for seed in range(2_000)]
    assert all(0.0 <= w <= 8.0 for w in waits)
    below = [sum(w < edge for w in waits) / len(waits) for edge in (2.0, 4.0, 6.0)]  # quarters of [0, 8]
    assert below == pytest.approx([0.25, 0.5, 0.75], abs=0.05)  # these 2,000 seeds are fixed: no luck involved
    assert backoff_delay(4, rng=random.Random(7)) == backoff_delay(4, rng=random.Random(7))
