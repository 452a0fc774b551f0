"""Lab 07's checks fail plausible wrong answers, for the reason a learner needs to hear.

Both exercises are random, so both checks compare distributions; each wrong answer here breaks one rule
the statement states (or, where noted, two at once by its nature), and the test asserts exactly which
checks fail: those it must, and nothing beyond what it may.
"""

import math
import random
from datetime import timedelta

import pytest

from course.core import queue
from course.core.backoff import CAP_S, backoff_delay
from course.errors import PermanentError
from course.grading import run_check
from course.programs.email_provider import EmailRejected, ProviderTimeout, ProviderUnavailable, TransientEmailError

from .wrong_answers import failed, fails_exactly

NUMBER = "returns a number of seconds"
RANGE = "waits between 0 and 2^(attempt-1) s"
CAP = "never more than 5 minutes"
JITTER = "full jitter: waits spread evenly"
GROWS = "the wait grows with each attempt"
RNG = "draws from the rng it is given"


# -- 07.backoff --------------------------------------------------------------------------------------


def right_backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))


def ceiling_as_a_float(attempt, rng):
    """2.0 ** 1024 does not fit in a float: a job on its 1,025th attempt crashes the worker's decision."""
    return rng.uniform(0, min(CAP_S, 2.0 ** (attempt - 1)))


def whole_seconds(attempt, rng):
    """randint: the first wait is 0 or 1 s and nothing between."""
    return rng.randint(0, int(min(CAP_S, 2 ** (attempt - 1))))


def bell_shaped(attempt, rng):
    """Most waits near the middle: jobs that failed together still come back close together."""
    ceiling = min(CAP_S, 2 ** (attempt - 1))
    return min(ceiling, max(0.0, rng.gauss(ceiling / 2, ceiling / 6)))


def capped_at_256(attempt, rng):
    """A cap of 2^8 instead of 300 s: never wrong by more than a minute, and never the stated cap."""
    return rng.uniform(0, min(256, 2 ** (attempt - 1)))


def in_milliseconds(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1))) * 1000


def at_least_a_second(attempt, rng):
    """'Never retry at once': every wait from 1 s up, so the first wait is always exactly 1 s."""
    return rng.uniform(1, max(1, min(CAP_S, 2 ** (attempt - 1))))


def its_own_seed(attempt, rng):
    """Repeatable, but not the rng it is given: every job on its 3rd attempt waits the same time."""
    return random.Random(attempt).uniform(0, min(CAP_S, 2 ** (attempt - 1)))


WRONG_BACKOFFS = {  # the answer, the checks it must fail, the checks it may fail as well
    # the ceiling itself: every job that failed together comes back in the same instant
    "no_jitter": (lambda attempt, rng: min(CAP_S, 2 ** (attempt - 1)), [JITTER], [RNG]),
    # doubles forever: attempt 20 may wait six days (and 2 ** 1402 no longer converts to a float)
    "no_cap": (lambda attempt, rng: rng.uniform(0, 2 ** (attempt - 1)), [CAP], [NUMBER]),
    # the cap applied to the draw: from attempt 10 on, most waits are exactly 300 s
    "cap_after_the_draw": (lambda attempt, rng: min(CAP_S, rng.uniform(0, 2 ** (attempt - 1))), [JITTER], [NUMBER]),
    # "equal jitter": half fixed, half random; never short
    "equal_jitter": (lambda attempt, rng: min(CAP_S, 2 ** (attempt - 1)) / 2
                     + rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)) / 2), [JITTER], []),
    # 2^attempt: the first wait is up to 2 s (and the cap arrives an attempt early)
    "off_by_one": (lambda attempt, rng: rng.uniform(0, min(CAP_S, 2 ** attempt)), [RANGE], [GROWS, JITTER]),
    # jittered, but never grows: every retry within a second, however often the provider failed
    "no_growth": (lambda attempt, rng: rng.uniform(0, 1), [GROWS], [JITTER]),
    # a timedelta is not a number of seconds: the queue needs seconds
    "not_a_number": (lambda attempt, rng: timedelta(seconds=rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))),
                     [NUMBER], []),
    # ignores the rng it is given: nobody can repeat its draws
    "module_random": (lambda attempt, rng: random.uniform(0, min(CAP_S, 2 ** (attempt - 1))), [RNG], []),
    "ceiling_as_a_float": (ceiling_as_a_float, [NUMBER], []),
    "whole_seconds": (whole_seconds, [JITTER], []),
    "bell_shaped": (bell_shaped, [JITTER], []),
    "capped_at_256": (capped_at_256, [JITTER], []),
    "in_milliseconds": (in_milliseconds, [RANGE], [CAP]),
    "at_least_a_second": (at_least_a_second, [JITTER], [RANGE]),
    "its_own_seed": (its_own_seed, [JITTER, RNG], [GROWS]),
}


def test_the_right_backoff_passes_and_says_how_often_it_could_fail_by_chance():
    report = run_check("07.backoff", backoff=right_backoff)
    assert report.passed, report.render()
    assert "a right answer fails it by the luck of its draws less than once in 1,000,000 runs" in report.render()


@pytest.mark.parametrize("name", WRONG_BACKOFFS)
def test_a_wrong_backoff_fails_for_its_reason(name):
    backoff, reasons, may = WRONG_BACKOFFS[name]
    report = run_check("07.backoff", backoff=backoff)
    assert fails_exactly(report, reasons, may), report.render()


def test_a_backoff_failure_names_the_attempt_and_what_the_draws_looked_like():
    text = run_check("07.backoff", backoff=WRONG_BACKOFFS["no_jitter"][0]).render()
    assert "smallest failing example: backoff(1, rng), 2,000 times" in text
    assert "2,000 waits from 1 to 1 s, mean 1 s" in text and "no wait came close to 0 s" in text


def test_a_float_overflow_is_named_at_the_first_attempt_that_raises_it():
    text = run_check("07.backoff", backoff=ceiling_as_a_float).render()
    assert "OverflowError" in text and "too large for a float" in text
    assert "smallest failing example: backoff(1403, rng)" in text  # the default seed's first attempt past 1,024


def test_the_attempts_tried_reach_the_thousands_and_replay_with_their_seed():
    from course.grading.checks import lab07

    assert lab07.backoff_attempts(7) == lab07.backoff_attempts(7)
    assert max(lab07.backoff_attempts(7)) > 1024 and set(range(1, 13)) <= set(lab07.backoff_attempts(7))
    assert lab07.backoff_attempts(7) != lab07.backoff_attempts(8)


# -- 07.route ----------------------------------------------------------------------------------------

PERMANENT = "permanent ones (422, 409, PermanentError)"
BUDGET = "out of attempts"
TRANSIENT = "transient failures"
BACKOFF = "a retry waits backoff_delay(job.attempts)"
RETRY_AFTER = "a provider's Retry-After is respected"


def right_route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)


def route_but(*, permanent=lambda error: isinstance(error, PermanentError), budget_left=lambda job: job.attempts <
              job.max_attempts, delay=lambda job: backoff_delay(job.attempts),
              after=lambda delay_s, error: max(delay_s, getattr(error, "retry_after_s", None) or 0),
              reasons=("permanent", "max_attempts")):
    """The right route with one part replaced: each wrong answer below breaks one rule and keeps the rest."""
    def route(job, error):
        if permanent(error):
            return queue.Dead(reasons[0])
        if not budget_left(job):
            return queue.Dead(reasons[1])
        return queue.Retry(after(delay(job), error))
    return route


def budget_before_reason(job, error):
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return right_route(job, error)


def returns_a_number(job, error):
    return backoff_delay(job.attempts)


def retry_after_crashes_when_absent(job, error):
    """Reads retry_after_s on every ProviderUnavailable: it is None when the provider sent no header."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if isinstance(error, ProviderUnavailable):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)


WRONG_ROUTES = {  # the answer, the checks it must fail, the checks it may fail as well
    "retries_permanent_failures": (route_but(permanent=lambda error: False), [PERMANENT], []),
    "one_attempt_too_many": (route_but(budget_left=lambda job: job.attempts <= job.max_attempts), [BUDGET], []),
    "hard_coded_budget": (route_but(budget_left=lambda job: job.attempts < 8), [BUDGET], []),
    "one_attempt_too_few": (route_but(budget_left=lambda job: job.attempts + 1 < job.max_attempts), [BUDGET], []),
    "a_reason_of_its_own": (route_but(reasons=("permanent", "out of attempts")), [BUDGET], []),
    "no_backoff": (route_but(delay=lambda job: 0.5), [BACKOFF], []),
    "the_next_attempts_backoff": (route_but(delay=lambda job: backoff_delay(job.attempts + 1)), [BACKOFF], []),
    "seconds_as_a_timedelta": (route_but(delay=lambda job: timedelta(seconds=backoff_delay(job.attempts)),
                                         after=lambda delay_s, error: delay_s), [BACKOFF], [RETRY_AFTER]),
    "ignores_retry_after": (lambda job, error: queue.decide(job, permanent=isinstance(error, PermanentError)),
                            [RETRY_AFTER], []),
    "retry_after_instead_of_the_backoff": (route_but(after=lambda delay_s, error: getattr(error, "retry_after_s", None)
                                                     or delay_s), [RETRY_AFTER], []),
    "retry_after_added_to_the_backoff": (route_but(after=lambda delay_s, error: delay_s + (
        getattr(error, "retry_after_s", None) or 0)), [RETRY_AFTER], []),
    "retry_after_capped_at_five_minutes": (route_but(after=lambda delay_s, error: min(CAP_S, max(
        delay_s, getattr(error, "retry_after_s", None) or 0))), [RETRY_AFTER], []),
    "retry_after_only_for_a_429": (route_but(after=lambda delay_s, error: max(delay_s, error.retry_after_s or 0) if
                                             getattr(error, "status", None) == 429 else delay_s), [RETRY_AFTER], []),
    "budget_checked_before_the_reason": (budget_before_reason, [PERMANENT], []),
    "timeouts_are_permanent": (route_but(permanent=lambda error: isinstance(error, (PermanentError, ProviderTimeout))),
                               [TRANSIENT], []),
    # a KeyError of ours is not the provider's fault... nor permanent
    "bugs_are_permanent": (route_but(permanent=lambda error: not isinstance(error, TransientEmailError)),
                           [TRANSIENT], [PERMANENT]),
    # "a 4xx is permanent": 408, 425 and 429 are the provider's 4xx that say "later", and a PermanentError has no status
    "permanent_by_status": (route_but(permanent=lambda error: getattr(error, "status", 500) < 500),
                            [TRANSIENT, PERMANENT], []),
    "only_rejections_are_permanent": (route_but(permanent=lambda error: isinstance(error, EmailRejected)),
                                      [PERMANENT], []),
    "retry_after_crashes_when_absent": (retry_after_crashes_when_absent, [TRANSIENT], [RETRY_AFTER]),
    "not_a_retry_or_dead": (returns_a_number, [TRANSIENT], [PERMANENT, BUDGET]),
    # red team 5: Retry-After read from the provider's errors only; another client's 429 carries one too
    "retry_after_only_from_the_provider": (route_but(after=lambda delay_s, error: max(delay_s, error.retry_after_s or 0)
                                                     if isinstance(error, ProviderUnavailable) else delay_s),
                                           [RETRY_AFTER], []),
    # red team 5: "a timeout may have delivered: give up" on Python's own TimeoutError (a socket's, another API's)
    "pythons_timeouts_are_permanent": (route_but(permanent=lambda error: isinstance(error, (PermanentError,
                                                                                           TimeoutError))),
                                       [TRANSIENT], []),
}


def test_the_right_route_passes():
    report = run_check("07.route", route=right_route)
    assert report.passed, report.render()


@pytest.mark.parametrize("name", WRONG_ROUTES)
def test_a_wrong_route_fails_for_its_reason(name):
    route, reasons, may = WRONG_ROUTES[name]
    report = run_check("07.route", route=route)
    assert fails_exactly(report, reasons, may), report.render()


def test_a_route_failure_shows_the_smallest_case_and_what_was_expected():
    text = run_check("07.route", route=WRONG_ROUTES["one_attempt_too_many"][0]).render()
    assert "smallest failing example: a 503 after attempt 8 of 8" in text
    assert "expected: \"Dead(reason='max_attempts')\"" in text and "got:      'Retry(delay_s=" in text


def test_returning_the_wrong_type_says_what_to_return():
    text = run_check("07.route", route=returns_a_number).render()
    assert "return course.core.queue.Retry(delay_s) or course.core.queue.Dead(reason)" in text


def test_an_off_by_one_backoff_is_named_by_the_attempt_it_follows():
    text = run_check("07.route", route=WRONG_ROUTES["the_next_attempts_backoff"][0]).render()
    assert "Your waits follow backoff_delay(job.attempts + 1)" in text


def test_a_route_check_replays_from_its_seed():
    route = WRONG_ROUTES["retry_after_added_to_the_backoff"][0]
    first, again = (run_check("07.route", route=route, seed=11).render() for _ in range(2))
    assert first == again and "seed=11" in first


def test_the_reference_law_is_the_solutions_route():
    """The check's reference (a law per failure) says what the solution's route does, failure by failure."""
    from course.grading import distributions
    from course.grading.checks import lab07

    rng = random.Random(3)
    for family in lab07.families():
        for _ in range(6):
            failure = family(rng)
            expected = lab07.reference(failure)
            random.seed(str(failure))
            ours = [lab07.decision(right_route(failure.job(), failure.exception())) for _ in range(400)]
            if expected[0] == "dead":
                assert set(ours) == {expected}, failure
            else:
                waits = [d[1] for d in ours]
                assert {d[0] for d in ours} == {"retry"} and expected[1].problem(waits, 1e-9) is None, failure
                assert math.isclose(expected[1].top, max(waits), rel_tol=0.1) or expected[1].fixed, failure
    assert distributions.Law.uniform(0, 8).floored(30).fixed


# -- 07.quiz -----------------------------------------------------------------------------------------


def test_the_quiz_takes_the_right_answers_in_any_spelling():
    assert run_check("07.quiz", q1="D F B E C A", q2=["e", "c"], q3="B", q4="c", q5="b").passed


@pytest.mark.parametrize("answers, wrong", [
    (dict(q1="dfbeac", q2="c, e", q3="b", q4="c", q5="b"), "q1"),  # the alert before the last retry
    (dict(q1="dfbeca", q2="c", q3="b", q4="c", q5="b"), "q2"),  # a 409 is permanent too
    (dict(q1="dfbeca", q2="c, e", q3="c", q4="c", q5="b"), "q3"),  # the cap never comes into play
    (dict(q1="dfbeca", q2="c, e", q3="b", q4="a", q5="b"), "q4"),
    (dict(q1="dfbeca", q2="c, e", q3="b", q4="c", q5="a"), "q5"),  # the budget, not the true reason
])
def test_a_wrong_quiz_answer_fails_only_its_question(answers, wrong):
    report = run_check("07.quiz", **answers)
    assert [name.split(":")[0] for name in failed(report)] == [wrong], report.render()


# Python 3.11 only warns about a bound like 3.0 (2 ** 1 * 1.5), once a draw: ~36,000 warnings before the check
# draws attempt 1's 1.5, which raises. The answer stays the learner's mistake; only its warnings are silenced.
@pytest.mark.filterwarnings("ignore:non-integer arguments to randrange:DeprecationWarning",
                            r"ignore:randrange\(\) will raise TypeError:DeprecationWarning")
def test_an_error_raised_inside_a_library_names_the_learners_calling_line():
    """randrange raises inside random.py: the message names the line of the answer that called it."""
    def backoff(attempt, rng):
        return rng.randrange(0, min(CAP_S, 2 ** (attempt - 1)) * 1.5)  # a float bound: random.py raises

    text = run_check("07.backoff", backoff=backoff).render()
    assert "your code raised ValueError" in text or "your code raised TypeError" in text, text
    assert "(line " in text and "return rng.randrange(0, min(CAP_S" in text, text
    assert "raise ValueError" not in text, text  # random.py's own line


@pytest.mark.parametrize("exercise, name", [("07.backoff", "backoff"), ("07.route", "route")])
def test_a_stub_not_started_is_named_as_the_learner_wrote_it(exercise, name):
    # blind round f3: 07.backoff's "not started" named the check's own helper (`draw_waits`)
    def stub(*args):
        raise NotImplementedError("not yet")

    stub.__name__ = name
    report = run_check(exercise, **{name: stub})
    assert f"`{name}` still raises NotImplementedError" in report.render(), report.render()
