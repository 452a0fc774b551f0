"""Plausible wrong answers to lab 10's exercises. Each must fail its check, and for the reason we expect."""

import math

import pytest

from course.programs import queueing_theory
from course.grading import run_check
from course.programs.queueing_theory import erlang_c


def fails_because(report, reason: str) -> None:
    text = report.render()
    assert report.status == "failed", text
    failed = [result.name for result in report.results if not result.passed]
    assert any(reason in name for name in failed), f"expected a failure about {reason!r}:\n{text}"


# -- 10.in_progress ------------------------------------------------------------------------------


def total_time_without_clipping(jobs, start, end):
    # every job's whole stay, even the parts outside the window
    return sum(left - arrived for arrived, left in jobs) / (end - start)


def mean_time_in_system(jobs, start, end):
    # W, not L: per job instead of per second
    return sum(left - arrived for arrived, left in jobs) / len(jobs) if jobs else 0.0


def jobs_seen_in_the_window(jobs, start, end):
    # a head count, not an average over time
    return float(sum(1 for arrived, left in jobs if left > start and arrived < end))


def clipped_at_the_start_only(jobs, start, end):
    # forgets the jobs still in the system when the window ends
    return sum(max(0.0, left - max(arrived, start)) for arrived, left in jobs if arrived < end) / (end - start)


def counted_once_a_second(jobs, start, end):
    # a sample at each whole second: right on whole-second examples, wrong on a real rush
    samples = [sum(1 for arrived, left in jobs if arrived <= t < left) for t in range(math.ceil(start), math.ceil(end))]
    return sum(samples) / (end - start)


def clipped_but_negative_outside(jobs, start, end):
    # clipped at both ends, but a job entirely outside the window gives a negative stay
    return sum(min(left, end) - max(arrived, start) for arrived, left in jobs) / (end - start)


@pytest.mark.parametrize("answer, reason", [
    (total_time_without_clipping, "a job that arrived before the window counts only from its start"),
    (mean_time_in_system, "one job there the whole window"),
    (jobs_seen_in_the_window, "0.2 on average, not 1"),
    (clipped_at_the_start_only, "a job still in the system at the end of the window"),
    (counted_once_a_second, "over a whole rush"),
    (clipped_but_negative_outside, "a job entirely after the window does not count"),
])
def test_wrong_averages_fail(answer, reason):
    fails_because(run_check("10.in_progress", average_in_system=answer), reason)


def test_the_failure_shows_the_smallest_example():
    text = run_check("10.in_progress", average_in_system=total_time_without_clipping).render()
    assert "smallest failing example: average_in_system([(-5, 1)], 0, 2)" in text
    assert "expected: 0.5" in text and "got:      3.0" in text


# -- 10.pool -------------------------------------------------------------------------------------


def rule_of_thumb(arrival_rate, service_time, target_wait):
    return queueing_theory.workers_needed(arrival_rate, service_time)  # λS + 10 %, whatever the target


def just_enough_for_the_load(arrival_rate, service_time, target_wait):
    return math.ceil(arrival_rate * service_time)  # ρ = 1 when λS is whole: the queue never settles


def target_met_only_when_beaten(arrival_rate, service_time, target_wait):
    workers = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, workers).mean_wait >= target_wait:
        workers += 1
    return workers


def sized_for_the_95th_percentile(arrival_rate, service_time, target_wait):
    return queueing_theory.size_pool(arrival_rate, service_time, target_wait, percentile=0.95)


def search_from_one_worker(arrival_rate, service_time, target_wait):
    workers = 1  # erlang_c refuses ρ >= 1: the search stops with an error on any real load
    while erlang_c(arrival_rate, service_time, workers).mean_wait > target_wait:
        workers += 1
    return workers


def returns_a_float(arrival_rate, service_time, target_wait):
    return float(queueing_theory.size_pool(arrival_rate, service_time, target_wait))


@pytest.mark.parametrize("answer, reason", [
    (rule_of_thumb, "the slow provider, mean wait at most 1 s"),
    (just_enough_for_the_load, "even a huge target needs more than λ × S = 2 workers"),
    (target_met_only_when_beaten, "a target met exactly counts as met"),
    (sized_for_the_95th_percentile, "the slow provider, mean wait at most 1 s"),
    (search_from_one_worker, "workers_for(2, 1, 1e+09)"),
    (returns_a_float, "hardly any load"),
])
def test_wrong_pool_sizes_fail(answer, reason):
    fails_because(run_check("10.pool", workers_for=answer), reason)


def test_a_wrong_size_is_explained_with_the_waits_around_it():
    text = run_check("10.pool", workers_for=rule_of_thumb).render()
    assert "smallest failing example: workers_for(11, 4, 1)" in text
    assert "with 49: mean wait" in text and "with 47: mean wait" in text and "with 46: mean wait" in text


# -- 10.quiz -------------------------------------------------------------------------------------


def test_a_wrong_quiz_answer_fails():
    report = run_check("10.quiz", q1="b", q2="a", q3="a", q4="b", q5="c", q6="a")
    assert [r.name.split(":")[0] for r in report.results if not r.passed] == ["q2", "q3"]
