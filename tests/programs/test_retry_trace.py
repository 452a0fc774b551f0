"""course.programs.retry_trace: StayHub's confirmation email through the 11:55-12:03 outage.

The policy is course.core.backoff's (random(0, 2^(n-1)) s, capped at 5 minutes, 8 attempts). Every random
draw is seeded, so these tests give the same numbers on every run.
"""

from __future__ import annotations

import doctest
import random

import pytest

from course.core import backoff
from course.programs import retry_trace
from course.errors import InvalidArgument
from course.programs.retry_trace import (attempt_times, attempts_needed, attempts_to_ride_out, clock,
                                dead_letters_for_sure, guest_story, random_waits, requests_with_backoff,
                                requests_with_fixed_pause, ride_out_probability, simulate_outage,
                                trace_job, worst_case_waits)

# fewer replays than the default 10,000 keep the file fast; the probabilities below are far enough
# from the thresholds that 2,000 draws decide them the same way
RUNS = 2_000


def test_the_docstring_examples_hold():
    failed, attempted = doctest.testmod(retry_trace, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert attempted > 5
    assert failed == 0


# -- (a) the worst case: every wait at its ceiling ------------------------------------------------------


def test_the_worst_case_waits_sum_to_127_seconds():
    waits = worst_case_waits()
    assert waits == [1, 2, 4, 8, 16, 32, 64]
    assert sum(waits) == 127
    times = attempt_times(waits)
    assert len(times) == 8
    assert clock(times[-1]) == "12:02:07"  # the latest attempt 8 can be: before the provider is back


def test_the_waits_come_from_course_backoff():
    assert worst_case_waits(12) == [backoff.backoff_ceiling(n) for n in range(1, 12)]
    assert worst_case_waits(12)[-1] == 300.0  # after attempt 10 the 5-minute cap takes over
    same_rng = random.Random(7)
    assert random_waits(random.Random(7)) == [backoff.backoff_delay(n, rng=same_rng) for n in range(1, 8)]


def test_a_timeout_adds_to_every_attempt():
    assert attempt_times([1, 2], attempt_s=10) == [0, 11, 23]
    assert attempt_times([], start=-5) == [-5]


# -- one job -----------------------------------------------------------------------------------------


def test_the_job_dead_letters_at_12_02_07_in_the_worst_case():
    trace = trace_job(worst_case_waits())
    assert trace.delivered_at is None
    assert trace.dead_lettered_at == 127
    assert trace.failed_attempts == 8


def test_an_attempt_when_the_provider_is_back_gets_through():
    trace = trace_job([1, 2, 4], start=170)  # attempts at 170, 171, 173, 177: all down
    assert trace.dead_lettered_at == 177
    trace = trace_job([1, 2, 4, 8], start=170)  # ... and 185: up
    assert trace.delivered_at == 185 and trace.failed_attempts == 4
    assert trace_job([1], start=180).attempts == [180]  # 12:03:00 sharp: the provider is up
    assert trace_job([1], start=-400).delivered_at == -400  # before 11:55 it was fine


# -- (b) many draws ------------------------------------------------------------------------------------


def test_with_this_policy_the_job_always_dead_letters():
    assert dead_letters_for_sure()  # even the latest attempt 8 (12:02:07) is before 12:03
    outage = simulate_outage(RUNS, seed=1)
    assert outage.dead_letter_probability == 1.0
    assert [spread.attempt for spread in outage.attempts] == list(range(1, 9))
    assert all(spread.runs == RUNS for spread in outage.attempts)
    ceilings = [0, *attempt_times(worst_case_waits())[1:]]
    for spread, latest_possible in zip(outage.attempts, ceilings):
        assert 0 <= spread.earliest <= spread.median <= spread.latest <= latest_possible
    # attempt 8: on average half the 127 s, since every wait is uniform on [0, its ceiling]
    assert outage.attempts[-1].median == pytest.approx(63.5, abs=5)
    assert outage.dead_lettered_at.latest < 127


def test_the_same_seed_gives_the_same_answer():
    assert simulate_outage(200, seed=4) == simulate_outage(200, seed=4)
    assert simulate_outage(200, seed=4).attempts[-1] != simulate_outage(200, seed=5).attempts[-1]


def test_a_slow_timeout_can_carry_the_last_attempt_past_12_03():
    # with a 10 s timeout on each of 7 failing attempts, the worst case ends at 127 + 70 = 197 s
    assert not dead_letters_for_sure(attempt_s=10)
    outage = simulate_outage(RUNS, seed=2, attempt_s=10)
    assert 0.9 < outage.dead_letter_probability < 1.0


def test_what_it_takes_to_ride_out_an_8_minute_outage():
    eight_minutes = 480
    assert ride_out_probability(eight_minutes, runs=RUNS) == 0.0  # 8 attempts: never
    # even with every wait at its ceiling, 9 attempts end after 255 s and 10 after 511 s
    assert dead_letters_for_sure(up_at=eight_minutes, max_attempts=9)
    assert not dead_letters_for_sure(up_at=eight_minutes, max_attempts=10)
    needed = attempts_needed(eight_minutes, runs=RUNS, seed=3)
    assert min(needed) >= 11  # jitter only shortens waits: never fewer than the worst case's 10 + 1
    # with jitter, 99 % of jobs need 15 attempts (P ≈ 0.975 at 14 and 0.994 at 15; with 2,000 draws
    # every one of 100 seeds we tried gave 15)
    assert attempts_to_ride_out(eight_minutes, runs=RUNS, seed=3) == 15
    assert ride_out_probability(eight_minutes, max_attempts=15, runs=RUNS, seed=3) >= 0.99
    # a lower cap spreads the attempts thinner, so it takes more of them (28 or 29: the 99 % point sits
    # on the edge between the two); a higher cap, fewer
    assert attempts_to_ride_out(eight_minutes, cap=60, runs=RUNS, seed=3) in (28, 29)
    assert attempts_to_ride_out(eight_minutes, cap=3600, runs=RUNS, seed=3) == 13


def test_the_stayhub_job_would_need_12_attempts_to_reach_12_03():
    assert attempts_to_ride_out(180, runs=RUNS, seed=3) == 12
    assert ride_out_probability(180, max_attempts=8, runs=RUNS) == 0.0


# -- (c) what the guest sees ---------------------------------------------------------------------------


def test_the_guest_gets_the_email_when_an_operator_redrives_it():
    story = [str(event) for event in guest_story(redrive_at=600)]
    assert story[0].startswith("12:00:00  guest books; the page says 'Booking confirmed'")
    assert "12:02:07  job moved to the dead-letter table; alert sent; the guest has no email" in story
    assert story[-1] == "12:10:00  attempt 1: email sent; the guest receives it 10 min after booking"


def test_without_a_redrive_there_is_no_email():
    story = guest_story()
    assert story[-1].what == "nobody redrives the job: the guest never gets the email"
    assert not any("email sent" in event.what for event in story)


def test_a_redrive_before_the_provider_is_back_retries_into_the_recovery():
    story = guest_story(redrive_at=150)
    times = [event.at for event in story]
    assert times == sorted(times)
    assert "attempt 6: email sent; the guest receives it 3 min 1 s after booking" in story[-1].what


def test_a_redrive_too_early_dead_letters_again():
    story = guest_story(redrive_at=127, up_at=400)  # a longer outage: the replayed attempts end at 254 s
    again = [event for event in story if event.what.startswith("dead-lettered again")]
    assert [event.at for event in again] == [254]
    assert not any("email sent" in event.what for event in story)


# -- the load on the provider -------------------------------------------------------------------------


def test_immediate_retries_hammer_the_provider():
    # 100 jobs, a loop that tries every 0.1 s for 8 minutes
    assert requests_with_fixed_pause(480, jobs=100, pause_s=0.1).requests == 480_000
    assert requests_with_fixed_pause(480, jobs=100, pause_s=0.1, request_s=0.05).requests == 320_000
    assert requests_with_fixed_pause(0.3, pause_s=0.1).requests == 3  # at 0, 0.1 and 0.2 s
    # with an attempt limit, immediate retries burn all 8 attempts in under a second
    capped = requests_with_fixed_pause(480, jobs=100, pause_s=0.1, max_attempts=8)
    assert (capped.requests, capped.dead_lettered) == (800, 100)


def test_backoff_sends_at_most_max_attempts_per_job():
    load = requests_with_backoff(480, jobs=100, seed=1)
    assert (load.requests, load.dead_lettered) == (800, 100)  # all 8 attempts fail, then the DLQ
    patient = requests_with_backoff(480, jobs=100, max_attempts=15, seed=1)
    assert patient.requests < 100 * 15
    assert patient.dead_lettered <= 5  # ~0.6 % expected
    short = requests_with_backoff(20, jobs=100, seed=1)  # a 20 s blip: most jobs get through
    assert short.dead_lettered < 20 and short.requests < 800


# -- errors say what and what next ---------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda: worst_case_waits(0),
    lambda: worst_case_waits(base=0),
    lambda: worst_case_waits(cap=-1),
    lambda: attempt_times([1, -2]),
    lambda: attempt_times([1], attempt_s=float("inf")),
    lambda: trace_job([1], down_from=10, up_at=5),
    lambda: simulate_outage(0),
    lambda: attempts_to_ride_out(480, confidence=1.5),
    lambda: attempts_to_ride_out(-1),
    lambda: guest_story(redrive_at=60),
    lambda: requests_with_fixed_pause(480, pause_s=0),
    lambda: requests_with_fixed_pause(480, jobs=-1),
    lambda: requests_with_backoff(480, max_attempts=True),
])
def test_bad_input_is_refused_with_a_message_that_helps(call):
    with pytest.raises(InvalidArgument) as error:
        call()
    message = str(error.value)
    assert any(hint in message for hint in ("Pass", "pass", "swap", "Give"))
