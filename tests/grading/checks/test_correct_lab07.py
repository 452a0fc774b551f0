"""Lab 07's checks pass correct answers written unlike the reference (issue 22: a check that fails a correct
answer is as wrong as one that passes a wrong one): other draws with the same law, helpers, the course's
own functions, and the answer each exercise's hints spell out. Both checks compare laws, not draws, so
none of these draws what the reference draws, and each must pass.
"""

import math
import random as chance

import pytest

from course.core import queue
from course.core.backoff import CAP_S, backoff_delay
from course.errors import PermanentError as Final
from course.grading import run_check

# -- 07.backoff -------------------------------------------------------------------------------------------


def hints_spelled_out(attempt, rng):
    """Hint 4, word for word."""
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))


def random_times_the_ceiling(attempt, rng):
    return min(300, 2 ** (attempt - 1)) * rng.random()


def from_the_top_down(attempt, rng):
    """The ceiling doubled in a loop (stopping at the cap), the wait counted down from it: the same law."""
    ceiling = 1.0
    for _ in range(attempt - 1):
        ceiling = min(CAP_S, ceiling * 2)
        if ceiling == CAP_S:
            break
    return ceiling - rng.uniform(0, ceiling)


def the_courses_own(attempt, rng):
    return backoff_delay(attempt, rng=rng)


def half_of_twice(attempt, rng):
    """Drawn on twice the range and halved; the exponent kept small with ldexp."""
    return rng.uniform(0, 2 * min(CAP_S, math.ldexp(1.0, min(attempt - 1, 30)))) / 2


@pytest.mark.parametrize("backoff", [hints_spelled_out, random_times_the_ceiling, from_the_top_down, the_courses_own,
                                     half_of_twice])
def test_a_correct_backoff_passes(backoff):
    report = run_check("07.backoff", backoff=backoff)
    assert report.passed, report.render()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_right_backoff_passes_with_other_seeds(seed):
    report = run_check("07.backoff", backoff=hints_spelled_out, seed=seed)
    assert report.passed, report.render()


# -- 07.route ---------------------------------------------------------------------------------------------


def route_hints_spelled_out(job, error):
    """Hint 4, word for word."""
    if isinstance(error, Final):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)


def one_expression_each(job, error):
    """An aliased PermanentError, the Retry-After read with `or 0`, the comparison turned around."""
    if isinstance(error, Final):
        return queue.Dead(reason="permanent")
    if job.max_attempts <= job.attempts:
        return queue.Dead(reason="max_attempts")
    return queue.Retry(delay_s=max(backoff_delay(job.attempts), getattr(error, "retry_after_s", 0) or 0))


def its_own_draw(job, error):
    """The wait drawn by hand with the module random; the Retry-After found with try/except."""
    if isinstance(error, Final):
        return queue.Dead("permanent")
    left = job.max_attempts - job.attempts
    if left <= 0:
        return queue.Dead("max_attempts")
    wait = chance.random() * min(CAP_S, 2 ** (job.attempts - 1))
    try:
        asked = error.retry_after_s
    except AttributeError:
        asked = None
    if asked is not None and asked > wait:
        wait = asked
    return queue.Retry(wait)


def through_the_courses_decide(job, error):
    """queue.decide, given a backoff that also honours the Retry-After."""
    asked = getattr(error, "retry_after_s", None) or 0
    return queue.decide(job, permanent=isinstance(error, Final),
                        backoff=lambda attempts: max(backoff_delay(attempts), asked))


@pytest.mark.parametrize("route", [route_hints_spelled_out, one_expression_each, its_own_draw,
                                   through_the_courses_decide])
def test_a_correct_route_passes(route):
    report = run_check("07.route", route=route)
    assert report.passed, report.render()


@pytest.mark.parametrize("seed", [1, 2])
def test_the_right_route_passes_with_other_seeds(seed):
    report = run_check("07.route", route=route_hints_spelled_out, seed=seed)
    assert report.passed, report.render()
