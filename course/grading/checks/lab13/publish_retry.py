"""13.publish_retry: the learner's retrying publish, judged beside the reference's, from what it does to
a publish function the check lends it and to a real stream.

    in this process, at once   every dead-publish and flaky-publish scenario, yours and the reference's side
                               by side in threads (the same load on both): seeded runs of TRANSIENT errors
                               (a timeout, no responders, a closed connection, 503 no leader, a reset
                               socket; each numbered by its attempt, so which one comes back is seen), some
                               ending in an ack after up to a dozen attempts
    on a three-node cluster    acks lost on the way back (stored anyway), then the stream's leader SIGKILLed

The pauses are the gaps between the attempts the lent publish saw, never what the answer asked
time.sleep for (no attribute of the answer's module is patched: behind the class grader's boundary it
runs in another process). Gaps are stretched by a busy machine, so they are judged against the nominal
pauses plus the reference's own overshoot, measured in the same seconds.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass

import nats.errors
import nats.js.api
import nats.js.errors

from course.infra import broker, nats_cluster, processes
from course.programs import jetstream_queue as jq

from course.grading.trial import Trial, describe
from course.grading.checks import exercise_check
from course.grading.checks.lab13.cluster import cluster_for_check as nats_cluster_for_check

DEFAULT_SEED = 13
NOMINAL_PAUSES_S = (0.05, 0.1, 0.2, 0.4)  # then 0.5 s each: the statement's "start around 50 ms, double, stay under ~0.5 s"
LONGEST_PAUSE_S = 0.75  # "stay under about half a second"


NEVER_CALLED = "not judged: publish was never called"


class Abandoned(BaseException):
    """Raised into learner code that would otherwise retry forever after the check gave up on it."""


class _NumberedTimeout(nats.errors.TimeoutError):
    """nats' TimeoutError, numbered by its attempt (which one came back is seen)."""

    def __init__(self, attempt: int):
        super().__init__()
        self.attempt = attempt

    def __str__(self) -> str:
        return f"nats: timeout (attempt {self.attempt})"


_NumberedTimeout.__name__ = _NumberedTimeout.__qualname__ = "TimeoutError"

LONG_ACK_AFTER = 27  # the attempt that is acked after a long election: about 12 s at the statement's pauses
TIMEOUT_S = 0.5  # a timed-out attempt of a dead publish takes this long (a real one waits for its timeout)


def transient_error(kind: str, attempt: int) -> Exception:
    """One of TRANSIENT, numbered by its attempt where the error can carry a message."""
    if kind == "no leader":
        return nats.js.errors.ServiceUnavailableError(
            code=503, description=f"JetStream system temporarily unavailable (attempt {attempt})")
    if kind == "reset":
        return ConnectionResetError(f"connection reset by peer (attempt {attempt})")
    if kind == "no responders":
        return nats.errors.NoRespondersError()
    if kind == "closed":
        return nats.errors.ConnectionClosedError()
    if kind == "slow timeout":
        return _NumberedTimeout(attempt)
    return nats.errors.TimeoutError()


KINDS = ("timeout", "no leader", "no responders", "closed", "reset")
NUMBERED = ("no leader", "reset")  # which one came back is seen in its message


def said(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"


@dataclass(frozen=True)
class Flaky:
    """A publish that raises `errors` (kinds, in turn, the last repeated) and, when `ack_after` is set,
    returns an ack from that attempt (1-based) on."""
    errors: tuple[str, ...]
    ack_after: int | None
    give_up_after_s: float

    def told(self) -> str:
        runs = ", ".join(self.errors[: (self.ack_after or 0) - 1 or len(self.errors)])
        if self.ack_after is None:
            first = ", ".join(self.errors[:4])
            return f"publish always raises ({first} ...); give_up_after_s={self.give_up_after_s}"
        if self.ack_after == 1:
            return f"publish returns an ack at once; give_up_after_s={self.give_up_after_s}"
        return f"publish raises {runs}, then returns an ack; give_up_after_s={self.give_up_after_s}"


class Run:
    """One answer against one Flaky publish, in a thread: the attempts it made (times, msg_ids), and how it ended."""

    def __init__(self, t: Trial, answer, scenario: Flaky, msg_id: str, wait_s: float):
        self.scenario, self.msg_id, self.wait_s = scenario, msg_id, wait_s
        self.times: list[float] = []
        self.ends: list[float] = []  # when each attempt came back (a timeout takes TIMEOUT_S)
        self.ids: list = []
        self.errors: list[Exception] = []
        self.ack = nats.js.api.PubAck(stream="ORDERS13", seq=4000 + len(msg_id))
        self.done = None  # the Attempt, once it ended
        self.abandoned = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(t, answer), daemon=True, name="check-13-publish")

    def publish(self, subject, payload, msg_id=None):
        if self.abandoned.is_set():
            raise Abandoned
        self.times.append(time.monotonic())
        self.ids.append(msg_id)
        attempt = len(self.times)
        if self.scenario.ack_after is not None and attempt >= self.scenario.ack_after:
            return self.ack  # stored: a publish again (same id) is a duplicate, acked the same
        kinds = self.scenario.errors
        kind = kinds[min(attempt, len(kinds)) - 1]
        error = transient_error(kind, attempt)
        self.errors.append(error)
        if kind == "slow timeout":
            time.sleep(TIMEOUT_S)
        self.ends.append(time.monotonic())
        raise error

    def _run(self, t: Trial, answer) -> None:
        try:
            self.done = t.attempt(answer, self.publish, "orders13.placed", {"n": 0}, self.msg_id,
                                  give_up_after_s=self.scenario.give_up_after_s)
        except Abandoned:
            pass
        except BaseException as error:  # NotStarted: reported by the caller
            self.done = error

    @property
    def gaps(self) -> list[float]:
        """The pauses: from an attempt's end (a timeout takes time) to the next one's start."""
        return [b - a for a, b in zip(self.ends, self.times[1:])]

    @property
    def took(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def start(self) -> "Run":
        self.started, self.ended = time.monotonic(), None
        self.thread.start()
        return self

    def join(self) -> "Run":
        self.thread.join(self.wait_s * processes.patience())  # bounds a hang only
        self.ended = time.monotonic()
        if self.thread.is_alive():
            self.abandoned.set()
        return self

    @property
    def running(self) -> bool:
        return self.thread.is_alive()


def overshoot(reference: Run) -> float:
    """How much longer than asked the reference's pauses took on this machine, now: the slack any answer's
    gaps are judged with."""
    nominal = list(NOMINAL_PAUSES_S) + [0.5] * 1000
    return max([gap - want for gap, want in zip(reference.gaps, nominal)] + [0.0])


def scenarios(rng: random.Random) -> list[Flaky]:
    """A dead publish (give up in 1 s), a dead one for 3 s (the pauses' shape), and three flaky ones that
    end in an ack: at once, after a few errors, after up to a dozen (every kind of error among the first five)."""
    def kinds(n):
        return tuple(rng.choice(NUMBERED if i == n - 1 else KINDS) for i in range(n))

    def numbered(n):
        return tuple(rng.choice(NUMBERED) for _ in range(n))

    def dead(n, then_reset=None):
        """Errors of every numbered kind, timeouts that take TIMEOUT_S among them, in any order (a deadline
        that counts only the pauses, no pause after a timeout, a backoff restarted when the error's type
        changes: round f5); `then_reset`: from that attempt on, resets only (an OSError as the last error)."""
        drawn = tuple("slow timeout" if rng.random() < 0.5 else rng.choice(NUMBERED) for _ in range(n))
        return drawn if then_reset is None else drawn[:then_reset - 1] + ("reset",) * (n - then_reset + 1)

    return [Flaky(dead(60, then_reset=rng.randint(3, 4)), None, 1.0), Flaky(dead(200), None, 3.0),
            Flaky(kinds(1), 1, 10.0), Flaky(kinds(3), rng.randint(2, 4), 10.0),
            Flaky(tuple(rng.sample(KINDS, len(KINDS))) + kinds(7), rng.randint(6, 12), 20.0),  # every kind, then more
            # a long election: about 12 s of errors with 30 s given (round f5, w14: a give-up capped at 10 s)
            Flaky(kinds(4), LONG_ACK_AFTER, 30.0)]


class FaultyPublish:
    """A real one-attempt publish, with faults where the check says: the stream's leader SIGKILLed, a
    publish that fails before it is sent, or one stored whose ack is lost on the way back."""

    def __init__(self, publisher: jq.Publisher, faults: dict[str, str], on_first_attempt=None):
        self.publisher, self.faults, self.on_first_attempt = publisher, dict(faults), on_first_attempt
        self.ids_seen: dict[str, list[str]] = {}  # the message (by payload) -> the Nats-Msg-Ids it was sent with
        self.stored_acks = 0
        self.acked: set[str] = set()  # messages whose ack reached the caller
        self.after_ack: list[str] = []  # attempts made for a message whose ack had reached the caller

    def __call__(self, subject, payload, msg_id=None):
        key = f"message {payload.get('n') if isinstance(payload, dict) else payload!r}"
        first = key not in self.ids_seen
        self.ids_seen.setdefault(key, []).append(msg_id)
        if first and self.on_first_attempt:
            self.on_first_attempt(payload)
        if key in self.acked:
            self.after_ack.append(key)
        fault = self.faults.pop(key, None)
        if fault == "not sent":
            raise nats.errors.TimeoutError
        ack = self.publisher.publish(subject, payload, msg_id=msg_id)
        if fault == "ack lost":
            raise nats.errors.TimeoutError  # stored, but the producer never hears it
        self.acked.add(key)
        return ack


def _stored(cluster: nats_cluster.Cluster, stream: str) -> list:
    """What the stream holds, asked of the servers themselves; a stream whose leader was just elected may
    time out a request or two: asked again until a HangBound passes."""
    bound = processes.HangBound(30)
    while True:
        try:
            return broker.messages(stream, url=cluster.live_urls, limit=10_000)
        except broker.TRANSIENT:
            if bound.passed():
                raise
            time.sleep(0.2)


def _judge_stored(t: Trial, cluster, stream: str, count: int, what: str, example: str, note: str = "",
                  gave_up: dict[str, tuple[str, str]] | None = None) -> None:
    """Messages {"n": 0} .. {"n": count - 1}: each must be in the stream exactly once. `gave_up`: the
    messages whose publish_with_retry raised (how, then the learner's line): not published, as far as
    the caller knows, whatever the stream holds — the first cause, named before what it lost."""
    copies = Counter(m.data.get("n") if isinstance(m.data, dict) else None for m in _stored(cluster, stream))
    copies = {f"message {n}": copies.get(n, 0) for n in range(count)}
    lost = [k for k, c in copies.items() if c == 0]
    doubled = [k for k, c in copies.items() if c > 1]
    gave_up = gave_up or {}
    first = next(iter(gave_up), None)
    t.expect(f"{what}: every message stored", ok=not lost and not gave_up,
             got=f"{first}: raised {gave_up[first][0]}" + (f"; {len(lost)} missing" if lost else "")
             if gave_up else f"{len(lost)} missing (first: {lost[0]})" if lost else "all stored",
             expected="all stored, every call returning its ack", example=example,
             note="\n".join(filter(None, [note] + ([
                 gave_up[first][1], "retry until an ack comes back or give_up_after_s has passed (60 s here): a leader "
                 "election takes seconds, and a raise tells the caller the message was not published"] if gave_up
                 else []))) or None)
    t.expect(f"{what}: none stored twice", ok=not doubled,
             got=f"{doubled[0]} stored {copies[doubled[0]]} times" if doubled else "one copy each",
             expected="one copy each", example=example,
             note=(note + "\n" if note else "") + "a retry with a new Nats-Msg-Id is a new message to JetStream"
             if doubled else None)


def _until_the_stream_answers(publisher: jq.Publisher, subject: str, timeout_s: float = 60.0) -> None:
    """A new replicated stream can meet "no responders" for a while after its leader is elected (the
    other servers have not heard of it yet; slower on a busy machine). The faults are the check's to
    place: it waits for a publish to go through first, so the learner's retries meet only those."""
    bound = processes.HangBound(timeout_s)  # bounds a hang only: stretched on a loaded machine
    while True:
        try:
            publisher.publish(subject, {"warmup": True})
            return
        except broker.TRANSIENT:
            if bound.passed():
                raise
            time.sleep(0.2)



def in_this_process(t: Trial, publish_with_retry, rng: random.Random) -> None:
    """Every Flaky scenario, yours and the reference's side by side, all at once (about 3 s)."""
    drawn = scenarios(rng)

    def pair(k, s):
        return (s, Run(t, publish_with_retry, s, f"order-{k}", wait_s=s.give_up_after_s + 5),
                Run(t, jq.publish_with_retry, s, f"order-{k}", wait_s=s.give_up_after_s + 5))

    runs = [pair(k, s) for k, s in enumerate(drawn)]
    # The 3 s dead run (the pauses' shape) starts once the 1 s one has ended: a call after another, in one
    # process, starts its pauses anew (a pause kept in a module global between calls: round f5, w06)
    for k, (_, yours, reference) in enumerate(runs):
        if k != 1:
            yours.start(), reference.start()
    runs[0][1].join(), runs[0][2].join()
    runs[1][1].start(), runs[1][2].start()
    for _, yours, reference in runs[1:]:
        yours.join(), reference.join()
    for _, yours, _ in runs:
        if isinstance(yours.done, BaseException):
            raise yours.done  # not started: reported the usual way
    _flaky(t, runs[2:])  # first: an error it does not retry shows there as itself, not as a hasty give-up
    (dead, yours, _), (long_dead, yours_long, ref_long) = runs[0], runs[1]
    example = dead.told()
    done = yours.done
    t.require("gives up: raises once give_up_after_s has passed", ok=done is not None and done.error is not None,
              got="still retrying after 6 s" if yours.running else
              f"returned {done.value!r}" if done is not None else "did not raise",
              expected="the last error raised, within a few seconds", example=example,
              note="the caller must hear that the message was not published")
    last = said(yours.errors[-1]) if yours.errors else None
    t.expect("re-raises the last error publish raised (not one of its own, not an earlier one)",
             ok=last is not None and done.error.startswith(last),
             got=done.error if last is None or not done.error.startswith(last) else "the last",
             expected=f"{last} (attempt {len(yours.times)}, the last)", example=example,
             note="a bare `raise` in the except block that gives up re-raises the error just caught, so the caller "
                  "sees what JetStream said")
    # Counted from its first attempt (its deadline is set before it), a retry that looks at the clock between
    # any two attempts makes at most one attempt once give_up_after_s has passed.
    # (on both dead runs: their timeouts take time, which a deadline counting only the pauses misses)
    late = [at for at in yours.times if at - yours.times[0] > dead.give_up_after_s]
    late_long = [at for at in yours_long.times if at - yours_long.times[0] > long_dead.give_up_after_s]
    late_run, late_dead = (yours_long, long_dead) if len(late) <= 1 and len(late_long) > 1 else (yours, dead)
    late = late_long if late_run is yours_long else late
    # Not before, either: a retry may stop one pause short of its deadline (the next pause would take it past),
    # never more. On the 3 s run a red team's give-up at half of give_up_after_s (1.5 s) shows; the check's
    # clock starts before the call and stops after it, so a busy machine only makes an answer look later.
    # (A retry whose pauses grow too long stops short by its next, doubled, pause: the pauses' rule names that.)
    early = long_dead.give_up_after_s - max(LONGEST_PAUSE_S, 2 * max(yours_long.gaps, default=0.0))
    too_soon = yours_long.done is not None and yours_long.done.error is not None and yours_long.took < early
    on_time = t.expect("gives up neither at once nor long after give_up_after_s",
             ok=yours.took >= 0.5 and len(late) <= 1 and not too_soon,
             got=f"raised after {yours.took:.2f} s" if yours.took < 0.5 else
             f"raised after {yours_long.took:.2f} s" if too_soon else
             f"{len(late)} attempts after give_up_after_s had passed, the last {late[-1] - late_run.times[0]:.2f} s "
             "after the first" if late[1:] else None,
             expected=f"raised at least {early:.2f} s after the call" if too_soon else
             f"at least 0.5 s of retries, and at most one attempt after {late_dead.give_up_after_s} s",
             example=long_dead.told() if too_soon else late_dead.told(),
             note="look at the clock before every pause: once the next pause would take you past "
             "the deadline, raise" if late[1:] else "give up once give_up_after_s has passed since the call, "
             "not sooner: the caller gave you that long" if too_soon else None)
    # Too few attempts is what giving up too soon looks like (a first attempt that times out takes half of the
    # 1 s): said above, so not said twice. Too many is hammering, whenever it gives up.
    t.require("pauses between attempts (a leader election is not helped by hammering)",
              ok=(2 if on_time else 1) <= len(yours.times) <= 50,
              got=f"{len(yours.times)} attempts in {yours.took:.2f} s",
              expected="2 to 50 attempts in about a second", example=example)
    _pauses(t, yours_long, ref_long)


def _pauses(t: Trial, yours: Run, reference: Run) -> None:
    """The gaps between attempts: the first near 50 ms, growing, never past about 0.5 s, each bound widened
    by how much the reference, beside it, overslept."""
    slack = overshoot(reference)
    gaps = yours.gaps
    shape = ", ".join(f"{g:.2f}" for g in gaps[:8]) + (" ..." if len(gaps) > 8 else "")
    # Judged exactly (round f5): no pause under about half the first 50 ms (two quick retries first, none
    # after a timeout), and the fourth at least 2.5 times the second (doubling: 4x; linear growth: 2x)
    shortest = min(gaps, default=0.0)
    doubles = len(gaps) < 4 or gaps[3] + slack >= 2.5 * max(gaps[1] - slack, 0.04)
    # each pause (but the last, which a deadline may cut short) at least 0.6 of the statement's: a backoff
    # that starts again (when the error's type changes: round f5, w18) falls back to 50 ms
    nominal = list(NOMINAL_PAUSES_S) + [0.5] * len(gaps)
    doubles = doubles and all(g + slack >= 0.6 * want for g, want in zip(gaps[:-1], nominal))
    ok = (len(gaps) >= 3 and gaps[0] <= 0.2 + slack and max(gaps) >= 2 * max(gaps[0] - slack, 0.05)
          and max(gaps) <= LONGEST_PAUSE_S + slack and shortest >= 0.025 and doubles)
    t.expect("the pauses start around 50 ms, double, and stay under about half a second", ok=ok,
             got=f"pauses of {shape} s" if gaps else f"{len(yours.times)} attempt(s) in {yours.took:.2f} s",
             expected="about 0.05, 0.1, 0.2, 0.4, then 0.5 s each" + (
                 f" (the reference's ran up to {slack:.2f} s long on this machine)" if slack > 0.05 else ""),
             example=yours.scenario.told(),
             note="pause = min(pause * 2, 0.5): an election takes seconds, and a pause that keeps doubling "
                  "leaves the cluster idle long after it is back" if gaps and max(gaps) > LONGEST_PAUSE_S + slack
             else "pause after every failed attempt, a timeout too, from the first: 0.05 s, then twice the last"
             if gaps and shortest < 0.025 else "pause = pause * 2: doubling, not adding" if not doubles else None)


def _flaky(t: Trial, runs) -> None:
    """Errors, then an ack: the same ack back, after exactly the reference's attempts, all with one msg_id."""
    def first(problem):
        return next(((s, y, r) for s, y, r in sorted(runs, key=lambda run: run[0].ack_after) if problem(y, r)),
                    None)

    # An answer that never called publish has sent no id and retried nothing: those rows are not judged (a
    # stub that returns None scored 2 of 3 here), and what it returned is.
    never = first(lambda y, r: not y.times)
    changed = first(lambda y, r: len(set(map(str, y.ids))) > 1 or (y.ids and y.ids[0] != y.msg_id))
    if never is not None and changed is None:
        t.not_reached("every attempt of a message carries the same Nats-Msg-Id", NEVER_CALLED)
    else:
        t.require("every attempt of a message carries the same Nats-Msg-Id", ok=changed is None,
                  got=f"sent as {changed[1].ids[:4]}" if changed else "same id",
                  expected=f"{changed[1].msg_id!r} on every attempt" if changed else "the msg_id it was given",
                  example=changed[0].told() if changed else None)
    # Gave up with most of give_up_after_s left (every kind comes in the first five attempts, under a second
    # at the statement's pauses): an error it does not retry. Later, its pauses were too long: judged there.
    gave_up = first(lambda y, r: y.done is None or (y.done.error is not None
                                                     and y.took < 0.5 * y.scenario.give_up_after_s))
    if gave_up is None and first(lambda y, r: y.done.error is not None):
        return  # too slow to reach the ack: the pauses' check names it
    if gave_up is None and never is not None:
        t.not_reached("retries any of TRANSIENT until an ack comes back", NEVER_CALLED)
        t.require("returns JetStream's ack", ok=False, got=f"returned {never[1].done.value!r}, never calling publish",
                  expected=f"{never[1].ack!r}, what publish returns once it succeeds", example=never[0].told(),
                  note="call publish(subject, payload, msg_id=msg_id), and return what it returns")
    t.expect("retries any of TRANSIENT until an ack comes back", ok=gave_up is None,
             got=(f"raised {gave_up[1].done.error} on attempt {len(gave_up[1].times)}" if gave_up[1].done
                  else "still running") if gave_up else "an ack", expected=
             f"the ack, on attempt {gave_up[0].ack_after} (as the reference)" if gave_up else "an ack",
             example=gave_up[0].told() if gave_up else None,
             note="catch every one of TRANSIENT (a timeout, no responders, a closed connection, 503 no leader, "
                  "an OSError): each is what a leader election looks like to a producer" if gave_up else None)
    if gave_up:
        return
    wrong_ack = first(lambda y, r: (getattr(y.done.value, "stream", None), getattr(y.done.value, "seq", None))
                      != (y.ack.stream, y.ack.seq))
    t.require("returns JetStream's ack", ok=wrong_ack is None,
              got=f"returned {wrong_ack[1].done.value!r}" if wrong_ack else "the ack",
              expected=f"{wrong_ack[1].ack!r}, what publish returned" if wrong_ack else "the ack",
              example=wrong_ack[0].told() if wrong_ack else None)
    again = first(lambda y, r: len(y.times) != len(r.times))
    t.expect("stops at JetStream's ack: no publish of a message once it is acknowledged", ok=again is None,
             got=f"{len(again[1].times)} attempts" if again else "none after the ack",
             expected=f"{len(again[2].times)} (the reference's)" if again else "none", example=
             again[0].told() if again else None,
             note="return the ack the first time one comes back: another publish is another message to "
                  "the stream unless its id is still in the duplicate window" if again else None)


@exercise_check("13.publish_retry")
def publish_retry(t: Trial, publish_with_retry):
    if t.seed is None:  # the errors drawn, which messages lose their ack: printed with a failure, to replay the run
        t.seed = DEFAULT_SEED
    rng = random.Random(t.seed)
    in_this_process(t, publish_with_retry, rng)
    with nats_cluster_for_check() as cluster:
        broker.ensure_stream("ORDERS13", ["orders13.>"], replicas=3, url=cluster.urls)
        with jq.Publisher(cluster.urls, timeout=1.0) as publisher:
            _until_the_stream_answers(publisher, "orders13.warmup")
            # 1. A healthy cluster, and acks lost on the way: the producer cannot know what was stored.
            count = 8
            kinds = ["ack lost"] * 3 + ["not sent"] * 2 + [None] * (count - 5)
            rng.shuffle(kinds)
            faults = {f"message {n}": kind for n, kind in enumerate(kinds) if kind}
            publish = FaultyPublish(publisher, faults)
            acks = []
            for n in range(count):
                acks.append(t.call(publish_with_retry, publish, "orders13.placed", {"n": n}, f"order-{n}",
                                   give_up_after_s=10.0,
                                   during=f"publish_with_retry(publish, 'orders13.placed', {{'n': {n}}}, "
                                          f"'order-{n}') with faults {faults or 'none'}"))
            plan = ", ".join(f"message {n}: {kind}" for n, kind in enumerate(kinds) if kind)
            example = f"8 messages on a healthy cluster; injected: {plan}"
            changed = {k: ids for k, ids in publish.ids_seen.items() if len(set(ids)) > 1}
            first_changed = next(iter(changed), None)
            t.require("every attempt of a message carries the same Nats-Msg-Id", ok=not changed,
                      got=f"{first_changed} was sent as {changed[first_changed]}" if changed else "same id",
                      expected="the msg_id it was given, on every attempt", example=example)
            t.require("returns JetStream's ack", ok=all(getattr(a, "seq", None) for a in acks),
                     got=[getattr(a, "seq", a) for a in acks][:4], expected="PubAck objects (with .seq)",
                     example=example)
            again = publish.after_ack
            t.expect("stops at JetStream's ack: no publish of a message once it is acknowledged", ok=not again,
                     got=f"{again[0]} published again after its ack ({len(again)} such attempt(s))" if again else "none",
                     expected="none", example=example,
                     note="return the ack the first time one comes back: another publish is another message to "
                          "the stream unless its id is still in the duplicate window, and an ack saying 'duplicate'"
                     if again else None)
            # A producer restarted after its ack was lost sends message 0 again, with its id: the stream has it
            # already, and its ack says "duplicate": that is the message acknowledged (round f5, w21 sent it
            # again under a new id, as if "duplicate" meant another message's)
            t.call(publish_with_retry, FaultyPublish(publisher, {}), "orders13.placed", {"n": 0}, "order-0",
                   give_up_after_s=10.0,
                   during="publish_with_retry(publish, 'orders13.placed', {'n': 0}, 'order-0') again, as a producer "
                          "restarted sends it")
            example += "; then message 0 sent again with its own id (a producer restarted), acked as a duplicate"
            _judge_stored(t, cluster, "ORDERS13", count, "lost acks", example)

            # 2. The stream's leader SIGKILLed while messages go out: seconds without a leader.
            killed: dict = {}
            first_after_kill = count + 3

            def kill_leader(payload):
                if payload.get("n") == first_after_kill and not killed:
                    killed["node"] = cluster.leader_of("ORDERS13")
                    killed["at"] = time.monotonic()
                    cluster.kill(killed["node"])

            publish = FaultyPublish(publisher, {}, on_first_attempt=kill_leader)
            total = count + 10
            gave_up: dict[str, tuple[str, str]] = {}  # a raise is the rule broken, judged with what is stored
            for n in range(count, total):
                started = time.monotonic()
                done = t.attempt(publish_with_retry, publish, "orders13.placed", {"n": n}, f"order-{n}",
                                 give_up_after_s=60.0)
                if done.error is not None:
                    attempts = len(publish.ids_seen.get(f"message {n}", []))
                    gave_up[f"message {n}"] = (f"{done.error_type} after {time.monotonic() - started:.1f} s, "
                                               f"{attempts} attempt(s)", f"your code raised {done.error}")
                if n == first_after_kill:
                    killed["answered_after_s"] = time.monotonic() - killed["at"]
            _until_the_stream_answers(publisher, "orders13.warmup")  # an answer that gave up left the election on
            note = (f"leader {killed.get('node')} SIGKILLed before message {first_after_kill}; "
                    f"{'the call gave up' if f'message {first_after_kill}' in gave_up else 'publishing resumed'} "
                    f"{killed.get('answered_after_s', float('nan')):.1f} s later")
            _judge_stored(t, cluster, "ORDERS13", total, "leader killed",
                          f"{total} messages, the leader SIGKILLed before message {first_after_kill}", note, gave_up)


