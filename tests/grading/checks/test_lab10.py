"""Plausible wrong answers to lab 10's exercises. Each must fail its check, and for the rule it breaks.

The checks are differential (issue 22): the rows below come from the authors and from a blind red team
(phase 1 of issue 22's round for labs 10 and 11: answers written from the notebook alone, before reading
the check); those marked "red team" passed the check they replaced."""

import math

import pytest

from course.programs import queueing_theory
from course.grading import run_check
from course.infra import processes
from course.programs.queueing_theory import erlang_c

from .wrong_answers import failed as reached_failures

TIME_AVERAGE = "returns the average over time: the area under the count divided by the window's width"
FROM_START = "a job that arrived before the window counts only from its start"
UNTIL_END = "a job still in the system at the end of the window counts until the end"
OUTSIDE = "a job entirely outside the window counts nothing, whatever order the jobs come in"
FEWEST = "the fewest workers whose Erlang C mean wait is at most the target"
MORE_THAN_LOAD = "more workers than λ × S, always"
MET_EXACTLY = "a target met exactly counts as met"
WHOLE = "a whole number of workers (an int), one for hardly any load"
RETURNS = "returns for every load and target"


def fails_exactly(report, reasons: list[str], also: list[str] = ()) -> None:
    text = report.render()
    assert report.status == "failed", text
    failed = reached_failures(report)  # a check not reached after the first failure is no reason of its own
    for reason in reasons:
        assert any(reason in name for name in failed), f"expected a failure about {reason!r}:\n{text}"
    allowed = [*reasons, *also]
    stray = [name for name in failed if not any(reason in name for reason in allowed)]
    assert not stray, f"failed for another reason too: {stray}\n{text}"


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


def stops_at_the_first_late_arrival(jobs, start, end):
    # red team: assumes the jobs come sorted by arrival, and stops at the first one after the window
    area = 0.0
    for arrived, left in jobs:
        if arrived >= end:
            break
        area += max(0.0, min(left, end) - max(arrived, start))
    return area / (end - start)


def width_plus_one(jobs, start, end):
    # red team: whole-second ticks, so the window is end - start + 1 seconds wide
    return sum(max(0.0, min(l, end) - max(a, start)) for a, l in jobs) / (end - start + 1)


def sampled_every_tenth(jobs, start, end):
    # red team: the jobs-table count's way, a sample every 0.1 s
    n = max(1, int(round((end - start) / 0.1)))
    return sum(sum(1 for a, l in jobs if a <= start + k * 0.1 < l) for k in range(n)) / n


def drops_the_early_ones(jobs, start, end):
    # red team: a job that arrived before start is left out, not counted from start
    return sum(max(0.0, min(l, end) - a) for a, l in jobs if a >= start) / (end - start)


def skips_the_unfinished(jobs, start, end):
    # red team: a job that leaves after end is "not finished" and skipped
    return sum(max(0.0, l - max(a, start)) for a, l in jobs if l <= end) / (end - start)


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


def starts_at_round_load_plus_one(arrival_rate, service_time, target_wait):
    # red team: round(λS) + 1 skips the pool of round(λS) workers, enough when λS is 2.6
    workers = round(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, workers).mean_wait > target_wait:
        workers += 1
    return workers


def chance_of_waiting(arrival_rate, service_time, target_wait):
    # red team: the probability of waiting compared with the target, not the mean wait
    workers = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, workers).probability_of_waiting > target_wait:
        workers += 1
    return workers


def none_for_hardly_any_load(arrival_rate, service_time, target_wait):
    # red team: zero workers when the load rounds to nothing
    if arrival_rate * service_time < 0.5:
        return 0
    return queueing_theory.size_pool(arrival_rate, service_time, target_wait)


WRONG_AVERAGES = {
    "total_time_without_clipping": (total_time_without_clipping, [FROM_START], [UNTIL_END, OUTSIDE]),
    "mean_time_in_system": (mean_time_in_system, [TIME_AVERAGE], [FROM_START, UNTIL_END, OUTSIDE]),
    "jobs_seen_in_the_window": (jobs_seen_in_the_window, [TIME_AVERAGE], [FROM_START, UNTIL_END]),
    "clipped_at_the_start_only": (clipped_at_the_start_only, [UNTIL_END], []),
    "counted_once_a_second": (counted_once_a_second, [TIME_AVERAGE], [FROM_START, UNTIL_END]),
    "clipped_but_negative_outside": (clipped_but_negative_outside, [OUTSIDE], []),
    "stops_at_the_first_late_arrival": (stops_at_the_first_late_arrival, [OUTSIDE], []),
    "width_plus_one": (width_plus_one, [TIME_AVERAGE], []),
    "sampled_every_tenth": (sampled_every_tenth, [TIME_AVERAGE], [FROM_START, UNTIL_END, OUTSIDE]),
    "drops_the_early_ones": (drops_the_early_ones, [FROM_START], []),
    "skips_the_unfinished": (skips_the_unfinished, [UNTIL_END], []),
}
WRONG_POOL_SIZES = {
    "rule_of_thumb": (rule_of_thumb, [FEWEST], [MORE_THAN_LOAD]),
    "just_enough_for_the_load": (just_enough_for_the_load, [MORE_THAN_LOAD], [FEWEST]),
    "target_met_only_when_beaten": (target_met_only_when_beaten, [MET_EXACTLY], []),
    "sized_for_the_95th_percentile": (sized_for_the_95th_percentile, [FEWEST], []),
    "search_from_one_worker": (search_from_one_worker, [MORE_THAN_LOAD], [FEWEST]),
    "returns_a_float": (returns_a_float, [WHOLE], []),
    "starts_at_round_load_plus_one": (starts_at_round_load_plus_one, [FEWEST], []),
    "chance_of_waiting": (chance_of_waiting, [FEWEST], [MORE_THAN_LOAD]),
    "none_for_hardly_any_load": (none_for_hardly_any_load, [WHOLE], []),
}


@pytest.mark.parametrize("case", WRONG_AVERAGES)
def test_wrong_averages_fail(case):
    answer, reasons, also = WRONG_AVERAGES[case]
    fails_exactly(run_check("10.in_progress", average_in_system=answer), reasons, also)


@pytest.mark.parametrize("case", WRONG_POOL_SIZES)
def test_wrong_pool_sizes_fail(case):
    answer, reasons, also = WRONG_POOL_SIZES[case]
    fails_exactly(run_check("10.pool", workers_for=answer), reasons, also)


def forgets_to_count_up(arrival_rate, service_time, target_wait):
    """`n + 1` where `n += 1` belongs: whenever the first candidate misses the target, it never returns."""
    n = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, n).mean_wait > target_wait:
        n + 1  # noqa: B018 (the learner's slip)
    return n


def test_an_answer_that_never_returns_is_stopped_with_a_clear_message():
    """It hung the check (and the notebook) before; now it fails in a bounded time, named, and stopped."""
    import threading
    import time

    before = threading.active_count()
    report = run_check("10.pool", workers_for=forgets_to_count_up)
    fails_exactly(report, [RETURNS])
    text = report.render()
    assert "did not return within 10 s" in text and "workers_for(" in text, text
    bound = processes.HangBound(30)
    while threading.active_count() > before and not bound.passed():  # its thread was stopped
        time.sleep(0.05)
    assert threading.active_count() <= before, "the answer's thread still runs"


def test_the_failure_shows_the_smallest_example_and_replays():
    text = run_check("10.in_progress", average_in_system=stops_at_the_first_late_arrival).render()
    assert "smallest failing example: average_in_system([" in text and "Random seed 10" in text
    example = text.split("smallest failing example: ")[1].splitlines()[0]
    assert example.count("(") - 1 == 2, example  # two jobs: one after the window, listed first; one inside
    assert run_check("10.in_progress", average_in_system=stops_at_the_first_late_arrival).render() == text


def test_a_wrong_size_is_explained_with_the_waits_around_it():
    text = run_check("10.pool", workers_for=starts_at_round_load_plus_one).render()
    assert "smallest failing example: workers_for(" in text
    assert "mean wait" in text and "λ × S = " in text


# -- 10.quiz -------------------------------------------------------------------------------------


def test_a_wrong_quiz_answer_fails():
    report = run_check("10.quiz", q1="b", q2="a", q3="a", q4="b", q5="c", q6="a")
    assert [r.name.split(":")[0] for r in report.results if not r.passed] == ["q2", "q3"]
