"""Lab 07: the backoff function (checked statistically), the retry-or-dead-letter decision, the quiz."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from uuid import UUID

from course.core import queue
from course.core.backoff import CAP_S, backoff_ceiling
from course.errors import PermanentError
from course.programs.email_provider import EmailRejected, ProviderTimeout, ProviderUnavailable, ProviderUnreachable

from course.grading.trial import Trial
from course.grading.checks import exercise_check, shared
from course.grading.checks.quiz import ask

DEFAULT_SEED = 7


# -- 07.backoff ------------------------------------------------------------------------------------


def _draws(t: Trial, backoff, attempt: int, seed: int) -> list:
    rng = random.Random(f"{seed}:{attempt}")
    return t.call_many(backoff, [((attempt, rng), {})] * shared.DRAWS,
                       during=f"backoff({attempt}, rng), {shared.DRAWS:,} times")


_is_seconds = shared.is_seconds


@exercise_check("07.backoff")
def backoff_check(t: Trial, backoff, seed=None):
    seed = DEFAULT_SEED if seed is None else seed
    draws = shared.expect_backoff_with_full_jitter(t, lambda attempt: _draws(t, backoff, attempt, seed),
                                                  "backoff({n}, rng)")
    shared.expect_growth(t, draws, "backoff({n}, rng)")

    def five_draws(seed_value):
        rng = random.Random(seed_value)
        return [backoff(3, rng) for _ in range(5)]

    again = t.call(five_draws, 11, during="five calls backoff(3, rng), rng = random.Random(11)")
    same = t.call(five_draws, 11, during="five calls backoff(3, rng), rng = random.Random(11)")
    t.expect("draws from the rng it is given (the same seed gives the same waits)", ok=again == same,
             got=f"{[round(x, 3) for x in again]} then {[round(x, 3) for x in same]}",
             example="five calls backoff(3, random.Random(11)), twice",
             note="use rng.uniform(...), not random.uniform(...): a check (or a test of yours) can then repeat it")


# -- 07.route --------------------------------------------------------------------------------------


def _job(attempts: int, max_attempts: int = 8) -> queue.Job:
    return queue.Job(id=981, queue="default", type="send_confirmation", payload={"booking_id": 981}, priority=0,
                     attempts=attempts, max_attempts=max_attempts, lease_token=UUID(int=981),
                     lease_expires_at=datetime(2026, 3, 14, 12, 1, tzinfo=UTC))


def _errors() -> dict[str, BaseException]:
    """What a confirmation email's attempt can raise, as course.programs.email_provider raises it."""
    return {
        "503": ProviderUnavailable("email to 'ana@example.com': HTTP 503: the email service is down (outage)",
                                   503, None),
        "timeout": ProviderTimeout("the email provider did not answer within 10 s; it may still deliver this "
                                   "email, so send again with the same Idempotency-Key"),
        "refused": ProviderUnreachable("nothing answered POST http://127.0.0.1:8025/emails: [Errno 111] "
                                       "Connection refused. Is the server running?"),
        "bug": KeyError("booking_id"),
        "422": EmailRejected("email to 'kim@stayhub.invalid': HTTP 422: rejected: no such mailbox", 422),
        "409": EmailRejected("email to 'ana@example.com': HTTP 409: Idempotency-Key 'confirm:981' was already "
                             "used for a different email", 409),
        "deleted": PermanentError("booking 981 was cancelled and deleted: there is nothing to confirm"),
        "429": ProviderUnavailable("email to 'ana@example.com': HTTP 429: too many requests", 429, 30.0),
    }


CASES = [  # (error, attempts, max_attempts, what should happen, in words)
    ("503", 1, 8, "retry", "a 503 after attempt 1 of 8"),
    ("timeout", 2, 8, "retry", "a timeout after attempt 2 of 8"),
    ("refused", 3, 8, "retry", "connection refused after attempt 3 of 8"),
    ("bug", 1, 8, "retry", "a KeyError (a bug of ours: the fix will be deployed) after attempt 1 of 8"),
    ("503", 7, 8, "retry", "a 503 after attempt 7 of 8"),
    ("422", 1, 8, "permanent", "a 422 (invalid address) after attempt 1 of 8"),
    ("409", 2, 8, "permanent", "a 409 (idempotency key reused for another email) after attempt 2 of 8"),
    ("deleted", 1, 8, "permanent", "a PermanentError (booking deleted) after attempt 1 of 8"),
    ("503", 8, 8, "max_attempts", "a 503 after attempt 8 of 8"),
    ("503", 3, 3, "max_attempts", "a 503 after attempt 3 of 3 (this job allows 3)"),
    ("422", 8, 8, "permanent", "a 422 after attempt 8 of 8: the reason to record is the real one"),
]


def _verdict(outcome) -> str:
    if isinstance(outcome, queue.Retry):
        return f"Retry(delay_s={outcome.delay_s!r})"
    if isinstance(outcome, queue.Dead):
        return f"Dead(reason={outcome.reason!r})"
    return repr(outcome)


def _expected(kind: str, attempts: int) -> str:
    if kind == "retry":
        return f"Retry(delay_s between 0 and {backoff_ceiling(attempts):g})"
    return f"Dead(reason={kind!r})"


def _matches(outcome, kind: str, attempts: int) -> bool:
    if kind == "retry":
        return (isinstance(outcome, queue.Retry) and _is_seconds(outcome.delay_s)
                and 0 <= outcome.delay_s <= backoff_ceiling(attempts))
    return isinstance(outcome, queue.Dead) and outcome.reason == kind


@exercise_check("07.route")
def route_check(t: Trial, route):
    errors = _errors()
    checks = {
        "retry": "transient failures (503, timeout, connection refused, a bug of ours) are retried after a backoff",
        "permanent": "permanent ones (422, 409, PermanentError) go to the dead-letter table at once, reason 'permanent'",
        "max_attempts": "out of attempts (attempts = max_attempts): dead-lettered, reason 'max_attempts'",
    }
    for kind, name in checks.items():
        wrong = None
        for error, attempts, max_attempts, expected, words in CASES:
            if expected != kind:
                continue
            outcome = t.call(route, _job(attempts, max_attempts), errors[error],
                             during=f"route(job, error) for {words}")
            if not _matches(outcome, kind, attempts):
                wrong = (outcome, words, attempts)
                break
        t.expect(name, ok=wrong is None, got=_verdict(wrong[0]) if wrong else None,
                 expected=_expected(kind, wrong[2]) if wrong else None, example=wrong[1] if wrong else None,
                 note=("return course.core.queue.Retry(delay_s) or course.core.queue.Dead(reason)"
                       if wrong and not isinstance(wrong[0], (queue.Retry, queue.Dead)) else None))

    delays = [t.call(route, _job(5), errors["503"], during="route(job, error) for a 503 after attempt 5")
              for _ in range(300)]
    seconds = [d.delay_s for d in delays if isinstance(d, queue.Retry) and _is_seconds(d.delay_s)]
    spread = len(seconds) == len(delays) and min(seconds) < 0.1 * 16 and max(seconds) > 0.9 * 16
    t.expect("the backoff is jittered: 300 retries after attempt 5 spread over 0 to 16 s", ok=spread,
             got=(f"from {min(seconds):.3g} to {max(seconds):.3g} s" if seconds else _verdict(delays[0])),
             expected="from near 0 to near 16 s", example="route(job with attempts=5, a 503), 300 times",
             note="use course.core.backoff.backoff_delay(job.attempts): the policy of the reference queue")

    outcome = t.call(route, _job(1), errors["429"], during="route(job, error) for a 429 with Retry-After: 30")
    waits = isinstance(outcome, queue.Retry) and _is_seconds(outcome.delay_s) and 30 <= outcome.delay_s <= CAP_S
    t.expect("a provider's Retry-After is respected: no retry sooner than it asked", ok=waits,
             got=_verdict(outcome), expected="Retry(delay_s between 30 and 300)",
             example="a 429 with Retry-After: 30 after attempt 1 (error.retry_after_s == 30.0)",
             note="a retry before the provider said it would take requests again is a wasted attempt")


# -- 07.quiz ---------------------------------------------------------------------------------------

STEPS_IN_ORDER = "dfbeca"


@exercise_check("07.quiz")
def quiz(t: Trial, q1, q2, q3, q4):
    order = "".join(ch for ch in str(t.answer("q1", q1)).lower() if ch.isalpha())
    if order == STEPS_IN_ORDER:
        t.expect("q1: what happens to a job while the provider keeps answering 503", ok=True)
    else:
        t.expect("q1: what happens to a job while the provider keeps answering 503", ok=False, got=q1,
                 note="not this order — six letters, each once: the first attempt comes before any backoff, "
                      "and a redrive needs a dead job")
    ask(t, "q2", q2, {"c", "e"}, "which failures not to retry",
        "would the same request succeed later, unchanged? Only those are worth an attempt")
    ask(t, "q3", q3, "b", "the 12:00 booking during the 11:55–12:03 outage",
        "add up the longest possible waits of 8 attempts and compare with 12:03")
    ask(t, "q4", q4, "c", "why full jitter",
        "think of 500 jobs that failed in the same second, and when each one comes back")
