"""Lab 07: plausible wrong answers must fail their check, for the reason the learner needs to hear."""

import random
from datetime import timedelta

import pytest

from course.core import queue
from course.core.backoff import CAP_S, backoff_delay
from course.errors import PermanentError
from course.grading import run_check
from course.programs.email_provider import ProviderTimeout, TransientEmailError

from .wrong_answers import failed


def assert_fails_on(report, *names):
    assert not report.passed, report.render()
    missing = [n for n in names if not any(n in f for f in failed(report))]
    assert not missing, f"expected failures about {missing}; the report:\n{report.render()}"


# -- 07.backoff --------------------------------------------------------------------------------------


def right_backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))


WRONG_BACKOFFS = {
    # the ceiling itself: every job that failed together comes back in the same instant
    "no_jitter": (lambda attempt, rng: min(CAP_S, 2 ** (attempt - 1)), "full jitter: waits spread evenly"),
    # doubles forever: attempt 20 may wait six days
    "no_cap": (lambda attempt, rng: rng.uniform(0, 2 ** (attempt - 1)), "never more than 5 minutes"),
    # the cap applied to the draw: from attempt 10 on, most waits are exactly 300 s
    "cap_after_the_draw": (lambda attempt, rng: min(CAP_S, rng.uniform(0, 2 ** (attempt - 1))),
                           "full jitter: waits spread evenly"),
    # "equal jitter": half fixed, half random; never short
    "equal_jitter": (lambda attempt, rng: min(CAP_S, 2 ** (attempt - 1)) / 2
                     + rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)) / 2), "full jitter: waits spread evenly"),
    # 2^attempt: the first wait is up to 2 s
    "off_by_one": (lambda attempt, rng: rng.uniform(0, min(CAP_S, 2 ** attempt)), "between 0 and 2^(attempt-1)"),
    # jittered, but never grows: every retry within a second, however often the provider failed
    "no_growth": (lambda attempt, rng: rng.uniform(0, 1), "the wait grows with each attempt"),
    # a timedelta is not a number of seconds: the queue needs seconds
    "not_a_number": (lambda attempt, rng: timedelta(seconds=rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))),
                     "returns a number of seconds"),
    # ignores the rng it is given: nobody can repeat its draws
    "module_random": (lambda attempt, rng: random.uniform(0, min(CAP_S, 2 ** (attempt - 1))), "draws from the rng"),
}


def test_the_right_backoff_passes():
    report = run_check("07.backoff", backoff=right_backoff)
    assert report.passed, report.render()


@pytest.mark.parametrize("name", WRONG_BACKOFFS)
def test_a_wrong_backoff_fails_for_its_reason(name):
    backoff, reason = WRONG_BACKOFFS[name]
    report = run_check("07.backoff", backoff=backoff)
    assert_fails_on(report, reason)


def test_a_backoff_failure_names_the_attempt_and_what_the_draws_looked_like():
    report = run_check("07.backoff", backoff=WRONG_BACKOFFS["no_jitter"][0])
    text = report.render()
    assert "smallest failing example: backoff(1, rng), 2,000 times" in text
    assert "2,000 draws from 1 to 1 s, mean 1 s" in text


# -- 07.route ----------------------------------------------------------------------------------------


def right_route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)


def retries_everything(job, error):
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(backoff_delay(job.attempts))


def one_attempt_too_many(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts > job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(backoff_delay(job.attempts))


def eight_for_everyone(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= 8:
        return queue.Dead("max_attempts")
    return queue.Retry(backoff_delay(job.attempts))


def fixed_delay(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(0.5)


def budget_before_reason(job, error):
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    return queue.Retry(backoff_delay(job.attempts))


def timeouts_are_permanent(job, error):
    if isinstance(error, (PermanentError, ProviderTimeout)):
        return queue.Dead("permanent")
    return right_route(job, error)


def only_email_errors_are_retried(job, error):
    if not isinstance(error, TransientEmailError):
        return queue.Dead("permanent")  # a KeyError of ours is not the provider's fault... nor permanent
    return right_route(job, error)


def returns_a_number(job, error):
    return backoff_delay(job.attempts)


WRONG_ROUTES = {
    "retries_permanent_failures": (retries_everything, "permanent ones (422, 409, PermanentError)"),
    "one_attempt_too_many": (one_attempt_too_many, "out of attempts"),
    "hard_coded_budget": (eight_for_everyone, "out of attempts"),
    "no_backoff": (fixed_delay, "the backoff is jittered"),
    "ignores_retry_after": (lambda job, error: queue.decide(job, permanent=isinstance(error, PermanentError)),
                            "a provider's Retry-After is respected"),
    "budget_checked_before_the_reason": (budget_before_reason, "permanent ones (422, 409, PermanentError)"),
    "timeouts_are_permanent": (timeouts_are_permanent, "transient failures"),
    "bugs_are_permanent": (only_email_errors_are_retried, "transient failures"),
    "not_a_retry_or_dead": (returns_a_number, "transient failures"),
}


def test_the_right_route_passes():
    report = run_check("07.route", route=right_route)
    assert report.passed, report.render()


@pytest.mark.parametrize("name", WRONG_ROUTES)
def test_a_wrong_route_fails_for_its_reason(name):
    route, reason = WRONG_ROUTES[name]
    assert_fails_on(run_check("07.route", route=route), reason)


def test_a_route_failure_shows_the_case_and_what_was_expected():
    text = run_check("07.route", route=one_attempt_too_many).render()
    assert "smallest failing example: a 503 after attempt 8 of 8" in text
    assert "expected: \"Dead(reason='max_attempts')\"" in text and "got:      'Retry(delay_s=" in text


def test_returning_the_wrong_type_says_what_to_return():
    text = run_check("07.route", route=returns_a_number).render()
    assert "return course.core.queue.Retry(delay_s) or course.core.queue.Dead(reason)" in text


# -- 07.quiz -----------------------------------------------------------------------------------------


def test_the_quiz_takes_the_right_answers_in_any_spelling():
    assert run_check("07.quiz", q1="D F B E C A", q2=["e", "c"], q3="B", q4="c").passed


@pytest.mark.parametrize("answers, wrong", [
    (dict(q1="dfbeac", q2="c, e", q3="b", q4="c"), "q1"),  # the alert before the last retry
    (dict(q1="dfbeca", q2="c", q3="b", q4="c"), "q2"),  # a 409 is permanent too
    (dict(q1="dfbeca", q2="c, e", q3="c", q4="c"), "q3"),  # the cap never comes into play
    (dict(q1="dfbeca", q2="c, e", q3="b", q4="a"), "q4"),
])
def test_a_wrong_quiz_answer_fails_only_its_question(answers, wrong):
    report = run_check("07.quiz", **answers)
    assert [name.split(":")[0] for name in failed(report)] == [wrong], report.render()


def test_an_error_raised_inside_a_library_names_the_learners_calling_line():
    """randrange raises inside random.py: the message names the line of the answer that called it."""
    def backoff(attempt, rng):
        return rng.randrange(0, min(CAP_S, 2 ** (attempt - 1)) * 1.5)  # a float bound: random.py raises

    text = run_check("07.backoff", backoff=backoff).render()
    assert "your code raised ValueError" in text, text
    assert "(line " in text and "return rng.randrange(0, min(CAP_S" in text, text
    assert "raise ValueError" not in text, text  # random.py's own line
