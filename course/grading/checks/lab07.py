"""Lab 07: the backoff and the retry-or-dead-letter decision, both randomised, so both judged as
distributions against the reference's law with a stated false-alarm rate (course/grading/distributions.py).

07.backoff: attempts 1 to 12 (every doubling, and the cap taking over at 10), then attempts drawn from
the tens to the thousands, 2,000 waits each, each attempt from a random.Random of its own seed.

07.route: failures drawn from every error lab 07's systems raise (the email provider's 5xx, 408, 425
and 429, each with and without a Retry-After, its timeouts and refused connections, its 4xx rejections;
a PermanentError of the handler's; bugs of ours; the database dropping) on jobs whose attempts sit on
each side of their budget, from 1 into the hundreds. The answer and the reference decide the same
failure; a retry's waits are drawn 500 times (and pooled, for their shape) and compared with the reference's law: uniform on
[0, backoff_ceiling(attempts)], raised to the Retry-After when that is longer. A difference is shrunk to
the plainest failure that still shows it.

What the rules leave free is not compared: how the wait is drawn, as long as its law is the reference's
(backoff_delay(job.attempts), rng.uniform, random() times the ceiling ...).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from uuid import UUID

import psycopg

from course.core import queue
from course.core.backoff import backoff_ceiling
from course.errors import InvalidJob, PermanentError
from course.programs.email_provider import (EmailRejected, ProviderTimeout, ProviderUnavailable, ProviderUnreachable,
                                            TransientEmailError)

from course.grading import differential as diff
from course.grading import distributions
from course.grading.distributions import Law
from course.grading.trial import Trial, short
from course.grading.checks import exercise_check, shared
from course.grading.checks.quiz import ask

DEFAULT_SEED = 7


# -- 07.backoff ------------------------------------------------------------------------------------


def backoff_attempts(seed: int) -> tuple[int, ...]:
    """Every attempt up to two past the cap (1 to 12), then attempts drawn from the tens, the hundreds and
    the thousands (past 1,024, where 2.0 ** (attempt - 1) no longer fits in a float)."""
    rng = random.Random(f"07.backoff:{seed}")
    return (*range(1, 13), *sorted(rng.sample(range(13, 100), 3)), *sorted(rng.sample(range(100, 1025), 2)),
            *sorted(rng.sample(range(1025, 10_000), 2)))


def draw_waits(backoff: Callable, attempt: int, seed: str, n: int) -> list:
    """n waits of backoff(attempt, rng) from one random.Random(seed) (a plain function of plain values).
    In class grading the learner's backoff runs in its own process: the n calls cross in one go (`many`),
    where one crossing each made 07.backoff's ~40,000 draws the slowest check of a class."""
    rng = random.Random(seed)
    many = getattr(backoff, "many", None)
    if many is not None:
        return many([((attempt, rng), {})] * n)
    return [backoff(attempt, rng) for _ in range(n)]


def named_after(answer: Callable, helper: Callable) -> Callable:
    """helper, under the answer's name: what t.attempt says of a function not started yet ("`backoff` still
    raises NotImplementedError") names the learner's function, not the check's helper that calls it."""
    def call(*args, **kwargs):
        return helper(*args, **kwargs)
    call.__name__ = getattr(answer, "__name__", "your function")
    return call


@exercise_check("07.backoff")
def backoff_check(t: Trial, backoff, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    attempts = backoff_attempts(t.seed)

    draw_waits_of = named_after(backoff, draw_waits)

    def draw(attempt: int):
        done = t.attempt(draw_waits_of, backoff, attempt, f"{t.seed}:{attempt}", shared.DRAWS)
        return shared.Raised(done.error) if done.error else done.value

    draws = shared.expect_backoff_with_full_jitter(t, draw, "backoff({n}, rng)", attempts=attempts)
    shared.expect_growth(t, draws, "backoff({n}, rng)")

    # The same seed twice must give the same waits, and another seed other waits.
    tried = sorted({1, 5, max(draws)} & set(draws))  # attempts that gave waits above
    runs = {a: [t.attempt(draw_waits_of, backoff, a, f"{name}:{t.seed}:{a}", 20) for name in ("again", "again", "other")]
            for a in tried}
    runs = {a: [done.value for done in done_list] for a, done_list in runs.items()
            if not any(done.error for done in done_list)}
    unrepeatable = next(((a, first, second) for a, (first, second, _) in runs.items() if first != second), None)
    deaf = next(((a, first, other) for a, (first, _, other) in runs.items()), None) if runs and all(
        first == other for first, _, other in runs.values()) else None  # the same waits at every attempt tried
    if unrepeatable or not deaf:
        a, first, second = unrepeatable or (None, None, None)
        t.expect("draws from the rng it is given (the same seed gives the same waits)", ok=not unrepeatable,
                 got=f"{[round(x, 3) for x in first[:5]]} then {[round(x, 3) for x in second[:5]]}" if a else None,
                 example=(f"backoff({a}, rng) 20 times with rng = random.Random(s), then again with a new "
                          "random.Random(s)" if a else None),
                 note="use rng.uniform(...), not random.uniform(...): a check (or a test of yours) can then repeat it")
    else:
        a, first, other = deaf
        t.expect("draws from the rng it is given (the same seed gives the same waits)", ok=False,
                 got=f"{[round(x, 3) for x in first[:5]]} with both", example=(
                     f"backoff({a}, rng) 20 times with rng = random.Random(s), then with random.Random(s2)"),
                 note="your waits are the same whatever rng it is given: draw them with it, rng.uniform(...)")
    big = ", ".join(f"{a:,}" for a in attempts[12:])
    t.tell(f"Tried attempts 1 to 12 and {big}, {shared.DRAWS:,} waits each, against the reference's law "
           f"(uniform on 0 to min(300, 2^(attempt-1)) s): {shared.backoff_budget(len(attempts)).said()}.")


# -- 07.route: the failures lab 07's systems raise ---------------------------------------------------


@dataclass(frozen=True)
class Kind:
    make: Callable[[float | None], BaseException]  # the error, with retry_after_s when it can carry one
    words: str  # in the learner's terms: "a 503", "a KeyError (a bug of ours)"
    retry_after: bool = False  # whether the provider's client gives it a Retry-After


def _unavailable(status: int, why: str) -> Kind:
    return Kind(lambda after: ProviderUnavailable(f"email to 'ana@example.com': HTTP {status}: {why}", status, after),
                f"a {status}", retry_after=True)


def _rejected(status: int, why: str) -> Kind:
    return Kind(lambda after: EmailRejected(f"email to 'kim@stayhub.invalid': HTTP {status}: {why}", status),
                f"a {status} (EmailRejected)")


def _other_client_busy(after: float | None) -> BaseException:
    """Another client's 429 with a Retry-After (not the provider's ProviderUnavailable): rule 4 reads any
    error's retry_after_s. An attribute, so the error crosses to a learner's process as it is."""
    error = TransientEmailError("the SMS gateway answered HTTP 429: too many requests")
    error.retry_after_s = after
    return error


KINDS: dict[str, Kind] = {
    "503": _unavailable(503, "the email service is down (outage)"),
    "500": _unavailable(500, "internal server error"),
    "502": _unavailable(502, "bad gateway"),
    "504": _unavailable(504, "gateway timeout"),
    "408": _unavailable(408, "request timeout"),
    "425": _unavailable(425, "too early"),
    "429": _unavailable(429, "too many requests"),
    "timeout": Kind(lambda after: ProviderTimeout("the email provider did not answer within 10 s; it may still "
                                                  "deliver this email, so send again with the same Idempotency-Key"),
                    "a timeout (ProviderTimeout)"),
    "refused": Kind(lambda after: ProviderUnreachable("nothing answered POST http://127.0.0.1:8025/emails: [Errno 111] "
                                                      "Connection refused. Is the server running?"),
                    "connection refused (ProviderUnreachable)"),
    "302": Kind(lambda after: TransientEmailError("email to 'ana@example.com': unexpected HTTP 302: Found"),
                "an unexpected 302 (TransientEmailError)"),
    "422": _rejected(422, "rejected: no such mailbox"),
    "409": _rejected(409, "Idempotency-Key 'confirm:981' was already used for a different email"),
    "400": _rejected(400, "bad request: no subject"),
    "404": _rejected(404, "no such endpoint"),
    "413": _rejected(413, "payload too large"),
    "deleted": Kind(lambda after: PermanentError("booking 981 was cancelled and deleted: there is nothing to confirm"),
                    "a PermanentError (the booking was deleted)"),
    "KeyError": Kind(lambda after: KeyError("booking_id"), "a KeyError (a bug of ours)"),
    "TypeError": Kind(lambda after: TypeError("'NoneType' object is not subscriptable"), "a TypeError (a bug of ours)"),
    "AttributeError": Kind(lambda after: AttributeError("'dict' object has no attribute 'email'"),
                           "an AttributeError (a bug of ours)"),
    "ZeroDivisionError": Kind(lambda after: ZeroDivisionError("division by zero"), "a ZeroDivisionError (a bug of ours)"),
    "InvalidJob": Kind(lambda after: InvalidJob("payload must be a JSON object"), "an InvalidJob (a ValueError)"),
    "db_down": Kind(lambda after: psycopg.OperationalError("consuming input failed: server closed the connection "
                                                           "unexpectedly"),
                    "psycopg.OperationalError (the database connection dropped)"),
    "serialization": Kind(lambda after: psycopg.errors.SerializationFailure(
        "could not serialize access due to concurrent update"), "a SerializationFailure from the database"),
    "reset": Kind(lambda after: ConnectionResetError(104, "Connection reset by peer"), "a ConnectionResetError"),
    "os_timeout": Kind(lambda after: TimeoutError("timed out"), "Python's own TimeoutError (a socket timed out)"),
    "os_refused": Kind(lambda after: ConnectionRefusedError(111, "Connection refused"),
                       "Python's own ConnectionRefusedError"),
    "other_429": Kind(_other_client_busy, "another client's 429 (a TransientEmailError with its own retry_after_s)",
                      retry_after=True),
}
PERMANENT_KINDS = ("422", "409", "400", "404", "413", "deleted")
PROVIDER_TRANSIENT = ("503", "500", "502", "504", "408", "425", "429", "timeout", "refused", "302", "other_429")
BUGS = ("KeyError", "TypeError", "AttributeError", "ZeroDivisionError", "InvalidJob", "db_down", "serialization",
        "reset", "os_timeout", "os_refused")
RETRY_AFTERS = (0.0, 1.0, 5.0, 30.0, 120.0, 299.0, 300.0, 301.0, 3600.0, 86_400.0)  # header values, in seconds

JOBS = {  # the job that failed: its own fields do not change the decision
    "plain": ("default", "send_confirmation", {"booking_id": 981}, 0),
    "receipt": ("emails", "send_receipt", {"order_id": 9812, "items": [{"sku": "D-1", "qty": 2}]}, 5),
    "odd": ("critical", "envoyer_reçu", {}, -3),
}


@dataclass(frozen=True)
class Failure:
    """A scenario: a job's attempt `attempts` of `max_attempts` raised this error."""
    error: str
    attempts: int
    max_attempts: int = 8
    retry_after_s: float | None = None  # the provider's Retry-After (only errors that carry one)
    job_kind: str = "plain"

    def job(self) -> queue.Job:
        name, kind, payload, priority = JOBS[self.job_kind]
        return queue.Job(id=981, queue=name, type=kind, payload=payload, priority=priority, attempts=self.attempts,
                         max_attempts=self.max_attempts, lease_token=UUID(int=981),
                         lease_expires_at=datetime(2026, 3, 14, 12, 1, tzinfo=UTC))

    def exception(self) -> BaseException:
        return KINDS[self.error].make(self.retry_after_s)

    def told(self) -> str:
        after = ("" if self.retry_after_s is None else
                 f" with Retry-After: {self.retry_after_s:g} (error.retry_after_s == {self.retry_after_s!r})")
        job = "" if self.job_kind == "plain" else f", a {JOBS[self.job_kind][1]} job on queue {JOBS[self.job_kind][0]!r}"
        return f"{KINDS[self.error].words}{after} after attempt {self.attempts} of {self.max_attempts}{job}"

    def shrinks(self) -> Iterator["Failure"]:
        """Plainer failures first (no Retry-After, a 503, the plain job, a budget of 8), then fewer attempts;
        each candidate strictly plainer than this one, so shrinking ends."""
        candidates = [replace(self, retry_after_s=None)]
        candidates += [replace(self, error=error, retry_after_s=self.retry_after_s if KINDS[error].retry_after else None)
                       for error in ("503", "422", "KeyError")]
        candidates.append(replace(self, job_kind="plain"))
        if self.attempts < 8:
            candidates.append(replace(self, max_attempts=8))
        if self.attempts - self.max_attempts + 8 >= 1:  # the same place in a budget of 8
            candidates.append(replace(self, attempts=self.attempts - self.max_attempts + 8, max_attempts=8))
        for fewer in sorted({1, self.attempts // 2, self.attempts - 1} - {0}):
            candidates.append(replace(self, attempts=fewer))
            if self.max_attempts - (self.attempts - fewer) >= 1:
                candidates.append(replace(self, attempts=fewer, max_attempts=self.max_attempts - (self.attempts - fewer)))
        seen = set()
        for candidate in candidates:
            if _weight(candidate) < _weight(self) and candidate not in seen:
                seen.add(candidate)
                yield candidate


def _weight(s: Failure) -> tuple:
    rank = {"503": 0, "422": 1, "KeyError": 1}.get(s.error, 2)
    return (s.retry_after_s is not None, rank, s.job_kind != "plain", s.max_attempts != 8, s.attempts,
            abs(s.max_attempts - 8))


def families() -> list[Callable[[random.Random], Failure]]:
    def transient(rng):  # the provider's and our own failures, with attempts left
        budget = rng.choice([8, 8, 3, 5, 12, 100, 1000])
        return Failure(rng.choice(PROVIDER_TRANSIENT + BUGS), rng.randint(1, budget - 1), budget,
                       job_kind=rng.choice(list(JOBS)))

    def boundary(rng):  # attempts on each side of the budget: the last attempt left, the last, one past
        budget = rng.choice([1, 2, 3, 8, 8, 20, 1000])
        attempts = max(1, budget + rng.choice([-1, 0, 0, 1]))
        error = rng.choice(PROVIDER_TRANSIENT + BUGS + PERMANENT_KINDS)
        after = rng.choice([None, 30.0]) if KINDS[error].retry_after else None
        return Failure(error, attempts, budget, after, rng.choice(list(JOBS)))

    def permanent(rng):  # a permanent failure anywhere in the budget, its last attempt included
        budget = rng.choice([1, 3, 8, 8, 1000])
        return Failure(rng.choice(PERMANENT_KINDS), rng.choice([1, budget, max(1, budget - 1), budget + 1]), budget,
                       job_kind=rng.choice(list(JOBS)))

    def retry_after(rng):  # the provider said when to come back: below, at and above the backoff's ceiling
        attempts = rng.randint(1, 12)
        error = rng.choice(("503", "503", "429", "429", "500", "502", "504", "408", "425", "other_429"))
        return Failure(error, attempts, rng.choice([attempts + 1, 8 if attempts < 8 else 20, 1000]),
                       rng.choice(RETRY_AFTERS + (None,)))

    def long_runs(rng):  # attempts in the hundreds: the cap decides the ceiling
        attempts = rng.randint(10, 999)
        error = rng.choice(PROVIDER_TRANSIENT + BUGS)
        after = rng.choice([None, None, 30.0, 600.0]) if KINDS[error].retry_after else None
        return Failure(error, attempts, rng.randint(attempts + 1, 1000), after)

    return [transient, boundary, permanent, retry_after, long_runs]


def every_kind() -> list[Failure]:
    """Each error lab 07's systems raise, once, on attempt 2 of 8 (and with a Retry-After of 30 s where it
    can carry one): tried on every run, before the drawn failures."""
    return [Failure(kind, 2, 8) for kind in KINDS] + [Failure(kind, 2, 8, 30.0) for kind in KINDS
                                                        if KINDS[kind].retry_after]


# -- the decision, in the contract's terms ----------------------------------------------------------------

PERMANENT = "permanent ones (422, 409, PermanentError) go to the dead-letter table at once, reason 'permanent'"
BUDGET = "out of attempts (attempts = max_attempts): dead-lettered, reason 'max_attempts'"
TRANSIENT = "transient failures (503, timeout, connection refused, a bug of ours) are retried after a backoff"
BACKOFF = ("a retry waits backoff_delay(job.attempts): spread evenly over 0 to 2^(attempts-1) s, capped at 300 s")
RETRY_AFTER = ("a provider's Retry-After is respected: no retry sooner than it asked, and otherwise the backoff's "
               "wait (the larger of the two)")
ROUTE_CHECKS = (PERMANENT, BUDGET, TRANSIENT, BACKOFF, RETRY_AFTER)
SCENARIOS = 60  # twelve of each family
ROUTES_PER_RETRY = 500  # waits drawn per retrying scenario, for its law (all of them pooled as well)
ROUTES_PER_DEAD = 20  # decisions per dead-lettering scenario: each must be the same Dead
RETURN_THIS = "return course.core.queue.Retry(delay_s) or course.core.queue.Dead(reason)"


def decision(value) -> tuple:
    """What route returned, as plain data: ("retry", delay_s), ("dead", reason) or ("odd", how it looked)."""
    if isinstance(value, queue.Retry):
        return ("retry", value.delay_s)
    if isinstance(value, queue.Dead):
        return ("dead", value.reason)
    return ("odd", short(value))


def shown(d: tuple) -> str:
    return {"retry": lambda: f"Retry(delay_s={d[1]!r})", "dead": lambda: f"Dead(reason={d[1]!r})"}.get(
        d[0], lambda: d[1])()


def reference(s: Failure) -> tuple:
    """The solution's route, as a law: ("dead", reason), or ("retry", the law of its delay_s)."""
    error = s.exception()
    if isinstance(error, PermanentError):
        return ("dead", "permanent")
    if s.attempts >= s.max_attempts:
        return ("dead", "max_attempts")
    after = getattr(error, "retry_after_s", None)
    return ("retry", Law.uniform(0, backoff_ceiling(s.attempts)).floored(after or None))


def route_many(route: Callable, job: queue.Job, error: BaseException, n: int) -> list:
    """n decisions of route(job, error) (a plain function of plain values, for Trial.attempt); in one
    crossing in class grading, as draw_waits."""
    many = getattr(route, "many", None)
    if many is not None:
        return many([((job, error), {})] * n)
    return [route(job, error) for _ in range(n)]


class RouteJudge:
    def __init__(self, t: Trial, route: Callable, seed: int, budget: distributions.Budget):
        self.t, self.route, self.seed, self.budget = t, route, seed, budget
        self.places: list[tuple[float, Failure]] = []  # each right retry's waits, placed in its law (pooled)

    def decide(self, s: Failure, n: int) -> tuple[str | None, list[tuple]]:
        """The answer's n decisions on this failure, the module `random` seeded from the scenario (a replay
        draws the same waits); or the error it raised."""
        random.seed(f"{self.seed}:{s}")
        done = self.t.attempt(named_after(self.route, route_many), self.route, s.job(), s.exception(), n)
        return (done.error, []) if done.error else (None, [decision(v) for v in done.value])

    def compare(self, s: Failure) -> diff.Finding | None:
        expected = reference(s)
        raised, ours = self.decide(s, ROUTES_PER_RETRY if expected[0] == "retry" else ROUTES_PER_DEAD)
        if raised:
            return self._raised(s, expected, raised)
        if expected[0] == "dead":
            wrong = next((d for d in ours if d != expected), None)
            return None if wrong is None else self._dead(s, expected, wrong)
        return self._retry(s, expected[1], ours)

    def _raised(self, s: Failure, expected: tuple, raised: str) -> diff.Finding:
        want = "Retry(...)" if expected[0] == "retry" else shown(expected)
        check = {"permanent": PERMANENT, "max_attempts": BUDGET}.get(expected[1], TRANSIENT)
        if check == TRANSIENT and s.retry_after_s is not None and self.compare(replace(s, retry_after_s=None)) is None:
            check = RETRY_AFTER
        return diff.Finding(check, got=f"raised {raised}", expected=want,
                            note="route decides; it must not raise for any error a job can raise (the worker would "
                                 "be left with a job it cannot retry or bury)")

    def _dead(self, s: Failure, expected: tuple, got: tuple) -> diff.Finding:
        if expected[1] == "permanent":
            note = {"retry": "a PermanentError (the provider's EmailRejected is one) fails the same way every time: "
                             "never retry it",
                    "dead": "check PermanentError first: on the last attempt too, 'permanent' is the true reason"}.get(
                got[0], RETURN_THIS)
            return diff.Finding(PERMANENT, got=shown(got), expected=shown(expected), note=note)
        if got == ("dead", "permanent") and self._decides(replace(s, attempts=1, max_attempts=8)) == got:
            return diff.Finding(TRANSIENT, got=shown(got), expected=shown(expected),
                                note=f"{KINDS[s.error].words} is not a PermanentError: it is transient, retried while "
                                     "attempts are left, then dead-lettered for 'max_attempts'")
        note = (f"job.attempts counts the run that just failed: after attempt {s.attempts} of {s.max_attempts} no "
                "attempt is left (job.attempts >= job.max_attempts)") if got[0] != "odd" else RETURN_THIS
        return diff.Finding(BUDGET, got=shown(got), expected=shown(expected), note=note)

    def _decides(self, s: Failure) -> tuple | None:
        raised, ours = self.decide(s, 1)
        return None if raised else ours[0]

    def _retry(self, s: Failure, law: Law, ours: list[tuple]) -> diff.Finding | None:
        expected = f"Retry(delay_s {law.said()})"
        other = next((d for d in ours if d[0] != "retry"), None)
        if other is not None:
            if other == ("dead", "max_attempts"):
                return diff.Finding(BUDGET, got=shown(other), expected=expected,
                                    note=f"after attempt {s.attempts} of {s.max_attempts}, "
                                         f"{s.max_attempts - s.attempts} attempt(s) are left: dead-letter only when "
                                         "job.attempts >= job.max_attempts")
            note = (f"only a PermanentError is final; {KINDS[s.error].words} may well work next time: retry it"
                    if other[0] == "dead" else RETURN_THIS)
            return diff.Finding(TRANSIENT, got=shown(other), expected=expected, note=note)
        waits = [d[1] for d in ours]
        if not all(shared.is_seconds(w) for w in waits):
            bad = next(w for w in waits if not shared.is_seconds(w))
            return diff.Finding(BACKOFF, got=f"Retry(delay_s={short(bad)})", expected=expected,
                                note="delay_s is a number of seconds (an int or a float)")
        if law.floor > 0 and min(waits) < law.floor:
            return diff.Finding(RETRY_AFTER, got=f"Retry(delay_s={min(waits):.4g})", expected=expected,
                                note=f"the provider asked for {law.floor:g} s: a retry sooner than that meets the "
                                     "same refusal. Wait max(backoff_delay(job.attempts), error.retry_after_s)")
        problem = law.problem(waits, self.budget.alpha)
        if problem is None:
            rng = random.Random(f"{self.seed}:places:{s}")
            self.places.extend((law.pit(w, rng), s) for w in waits)
            return None
        if s.retry_after_s and self.compare(replace(s, retry_after_s=None)) is None:
            return diff.Finding(RETRY_AFTER, got=distributions.describe(waits), expected=expected,
                                note=problem + f". With a Retry-After of {s.retry_after_s:g} s the wait is the larger "
                                     "of the two: max(backoff_delay(job.attempts), error.retry_after_s)")
        return diff.Finding(BACKOFF, got=distributions.describe(waits), expected=expected,
                            note=problem + self._which_backoff(s, waits))

    @staticmethod
    def _which_backoff(s: Failure, waits: list[float]) -> str:
        """Which attempt's backoff the waits do follow, if a neighbour's (found by experiment on the draws)."""
        for other, words in ((s.attempts - 1, "job.attempts - 1"), (s.attempts + 1, "job.attempts + 1")):
            if other >= 1 and Law.uniform(0, backoff_ceiling(other)).problem(waits, 1e-9) is None:
                return f". Your waits follow backoff_delay({words}): use backoff_delay(job.attempts)"
        return ". Use backoff_delay(job.attempts): random(0, min(300, 2^(attempts-1))) s"

    def pooled(self) -> diff.Finding | None:
        """All right-looking retries together, each wait placed in its own law: n in the tens of thousands
        sees a shape a little off that 1,000 waits of one failure do not."""
        if not self.places:
            return None
        shares = [place for place, _ in self.places]
        distance = Law.uniform(0, 1).ks_distance(shares)
        if distance <= distributions.ks_epsilon(len(shares), self.budget.alpha):
            return None
        by_failure: dict[Failure, list[float]] = {}
        for place, s in self.places:
            by_failure.setdefault(s, []).append(place)
        worst = max(by_failure, key=lambda s: Law.uniform(0, 1).ks_distance(by_failure[s]))
        return diff.Finding(BACKOFF, got=f"{len(shares):,} waits of {len(by_failure)} failures, each placed in its "
                                         f"own range: a gap of {distance:.1%} from an even spread",
                            expected="each failure's waits spread evenly over its range",
                            note="your waits lean to one side of their range, a little but every time: draw them "
                                 "with backoff_delay(job.attempts)", example=worst.told())


@exercise_check("07.route")
def route_check(t: Trial, route, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    budget = distributions.Budget(distributions.FALSE_ALARM, tests=len(every_kind()) + SCENARIOS + 1)
    judge = RouteJudge(t, route, t.seed, budget)
    verdicts = diff.Verdicts(t, ROUTE_CHECKS)
    state = random.getstate()  # the answer's backoff_delay draws from the module random: seeded here, put back
    try:
        diff.search(verdicts, diff.in_turn(families()), judge.compare, seed=t.seed, count=SCENARIOS,
                    first=every_kind())
        pooled = judge.pooled() if not verdicts.failed(BACKOFF) else None
        if pooled is not None:
            verdicts.add(pooled, pooled.example)
    finally:
        random.setstate(state)
    verdicts.report()
    t.tell(f"Tried every error lab 07's systems raise, then {SCENARIOS} failures drawn (with and without a Retry-After, "
           f"attempts on each side of the budget); each retry's waits drawn {ROUTES_PER_RETRY:,} times, against the reference's "
           f"law: {budget.said()}.")


# -- 07.quiz ---------------------------------------------------------------------------------------

STEPS_IN_ORDER = "dfbeca"


@exercise_check("07.predict_outage")
def predict_outage_check(t: Trial, predict_outage):
    ask(t, "predict_outage", predict_outage, "a",
        "what providers A and B receive during the 6 s outage, and what B delivers",
        "look at what the run measured: how many requests did each provider get, and where did B's receipts end?")


@exercise_check("07.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5):
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
    ask(t, "q5", q5, "b", "a permanent error on the last attempt",
        "which reason is true for that job: that it ran out of attempts, or that no attempt could ever succeed?")
