"""Lab 13: the course's ideas on a replicated NATS JetStream cluster.

The two code exercises run against a real three-node cluster that the check starts (and always stops):
  13.keep_alive      the learner's handler runs in real consumer processes, on a consumer whose AckWait
                     is shorter than the work; it must be delivered once, run once, acked once.
  13.publish_retry   the learner's retrying publish, through a publish function the check controls:
                     acks lost on the way back (the message stored anyway), then the stream's leader
                     SIGKILLed mid-run. Every message must be stored exactly once.
  13.choose          the decision function, on cases.
Each starts with quick checks in this process, so most wrong answers fail in a second or two, before
any cluster is started.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import Counter
from contextlib import contextmanager

import nats.errors

from course.infra import broker, nats_cluster, processes
from course.programs import jetstream_queue as jq
from course.programs import jetstream_run

from course.grading.trial import Trial, describe
from course.grading.checks import exercise_check, shared
from course.grading.checks.quiz import ask

# 13.keep_alive: an invoice of PAGES pages, each taking the notebook's PAGE_S (0.4 s): longer than ACK_WAIT_S.
ACK_WAIT_S = 1.2
QUICK_PAGES = 4  # 1.6 s in this process
CLUSTER_PAGES = 6  # 2.4 s in a consumer process: two AckWaits
PAGE_S = 0.4


@contextmanager
def cluster_for_check():
    """A private three-node cluster, stopped whatever happens in the check."""
    cluster = nats_cluster.Cluster.start(3)
    try:
        yield cluster
    finally:
        cluster.stop()


# -- 13.keep_alive ---------------------------------------------------------------------------------


class RecordingTask:
    """Stands in for jetstream_consumer.Task in this process: records when the handler said it was still at work."""

    def __init__(self, data: dict, deliveries: int = 1, events: list | None = None):
        self.data, self.deliveries = data, deliveries
        self.subject, self.headers, self.seq, self.msg_id = "invoices.render", {}, 1, "booking-981"
        self.events = [] if events is None else events  # "page" and "in progress", in the order they came

    @property
    def signals(self) -> list[str]:
        return [e for e in self.events if e == "in progress"]

    def in_progress(self) -> None:
        self.events.append("in progress")


def _longest_silence(events: list[str]) -> int:
    """The most pages drawn in a row with no in-progress ack between them (from the delivery, to the return):
    counted, not timed, so a busy machine that stretches a page changes nothing. The AckWait must outlast
    that many pages."""
    longest = run = 0
    for event in events:
        run = run + 1 if event == "page" else 0
        longest = max(longest, run)
    return longest


QUICK_BOOKING = 4417  # not the demo's bookings (981, 982): an id copied from the demo shows


FAILING_PAGE = 1  # in a 3-page invoice: render_page raises there, as a renderer that crashes would
_bookings = itertools.count(QUICK_BOOKING)  # a fresh booking per run: pages an earlier run's thread still
_earlier: set[int] = set()                  # draws (an answer that returned early) are not this run's


def _next_booking() -> int:
    booking = next(_bookings)
    _earlier.add(booking)
    return booking


@exercise_check("13.keep_alive")
def keep_alive(t: Trial, render_invoice):
    events: list[str] = []
    booking = _next_booking()
    task = RecordingTask({"booking_id": booking, "pages": QUICK_PAGES}, events=events)
    drawn: list[tuple] = []

    def page_drawn(*args, **kwargs):
        call = tuple(args) + tuple(kwargs.values())
        if call and call[0] in _earlier and call[0] != booking:
            return  # an earlier run's page, drawn by a thread that outlived it
        drawn.append(call)
        events.append("page")

    started = time.monotonic()
    with shared.intercepting(render_invoice, "render_page", page_drawn):
        t.call(render_invoice, task, during=f"render_invoice(task) for a {QUICK_PAGES}-page invoice")
    took = time.monotonic() - started
    t.require(f"renders every page ({QUICK_PAGES} pages x {PAGE_S} s)", ok=took >= QUICK_PAGES * PAGE_S * 0.9,
              got=f"returned after {took:.2f} s", expected=f"at least {QUICK_PAGES * PAGE_S * 0.9:.2f} s",
              example=f"task.data = {task.data}", note="call render_page(booking_id, page) for each page, "
              "in the handler itself: once it returns, the consumer acknowledges the message")
    wanted = [(booking, page) for page in range(QUICK_PAGES)]
    t.expect("renders the task's own booking, every page once: render_page(booking_id, 0), (booking_id, 1) ...",
             got=drawn, expected=wanted, example=f"task.data = {task.data}",
             note="take both from task.data: task.data['booking_id'] and range(task.data['pages']) (pages count from 0)")
    silence = _longest_silence(events)
    allowed = int((ACK_WAIT_S - 1e-9) // PAGE_S)  # 2 pages: 0.8 s < 1.2 s; 3 pages are the whole AckWait
    t.require(f"no stretch of work longer than the AckWait ({ACK_WAIT_S} s) without task.in_progress()",
              ok=silence <= allowed, got=f"{len(task.signals)} in-progress ack(s); {silence} pages in a row "
              f"({silence * PAGE_S:.1f} s) with none between them", expected=f"at most {allowed} pages "
              f"({allowed * PAGE_S:.1f} s) without one", example=f"a {QUICK_PAGES}-page invoice, {PAGE_S} s a page",
              note="JetStream redelivers a message whose AckWait runs out, even while your handler still "
                   "works on it: signal between pages, not once")
    _a_failing_page(t, render_invoice)
    in_a_cluster(t, render_invoice)


def _a_failing_page(t: Trial, render_invoice) -> None:
    """render_page raises on one page: the handler must raise too, so the consumer leaves the message for a
    retry; returning would acknowledge an invoice that was never drawn."""
    booking = _next_booking()
    task = RecordingTask({"booking_id": booking, "pages": 3})

    def crash(booking_id, page, *args, **kwargs):
        leaked = booking_id in _earlier and booking_id != booking  # an earlier run's thread, still drawing
        if page == FAILING_PAGE and not leaked:
            raise RuntimeError(f"the PDF renderer crashed on page {page}")

    with shared.intercepting(render_invoice, "render_page", crash):
        done = t.attempt(render_invoice, task)
    t.expect("a page that cannot be drawn makes it raise: the message is left for a retry, not acknowledged",
             ok=done.error is not None, got="returned (the consumer acknowledges it)" if done.error is None
             else f"raised {done.error}", expected="the renderer's RuntimeError, raised",
             example=f"task.data = {task.data}; render_page raises RuntimeError on page {FAILING_PAGE}",
             note="let render_page's errors out of your function (no try/except around it, or re-raise): the "
                  "consumer acknowledges whatever returns" if done.error is None else None)


def in_a_cluster(t: Trial, render_invoice) -> None:
    """The handler in two real consumer processes, on a three-node cluster, with a 1.2 s AckWait."""
    with cluster_for_check() as cluster:
        invoices = jq.WorkQueue("INVOICES", replicas=3, ack_wait_s=ACK_WAIT_S, max_deliver=5)
        jq.reset(invoices, cluster.urls)
        history = jq.new_history("course-check-13-")
        consumers = jetstream_run.spawn_consumers(invoices, render_invoice, cluster.urls, 2, history=history, name="check-consumer")
        try:
            ids = {"booking-981": CLUSTER_PAGES, "booking-982": 1}
            with jq.Publisher(cluster.urls, timeout=5) as publisher:
                for msg_id, pages in ids.items():
                    publisher.publish(invoices.subject("render"), {"booking_id": int(msg_id[-3:]), "pages": pages},
                                      msg_id=msg_id)
            try:
                processes.wait_until(lambda: jq.settled(history, list(ids)), 30, interval=0.1,
                                     what="both invoices to be acknowledged")
            except TimeoutError:
                pass
        finally:
            for consumer in consumers:
                consumer.kill()
        events = jq.read_history(history)
    outcome = jq.Outcome.of(events)
    crashed = [e for e in events if e.kind == "failed"]
    t.require("runs in a consumer process without raising", ok=not crashed,
              got=crashed[0].detail if crashed else None, example=f"a {CLUSTER_PAGES}-page invoice",
              note=jq.timeline(events, crashed[0].msg_id) if crashed else None)
    long_one = "booking-981"
    t.expect(f"a {CLUSTER_PAGES}-page invoice ({CLUSTER_PAGES * PAGE_S:.1f} s) with AckWait {ACK_WAIT_S} s is "
             "delivered once", got=outcome.deliveries.get(long_one, 0), expected=1,
             example=f"{CLUSTER_PAGES} pages on a consumer with AckWait {ACK_WAIT_S} s",
             note=None if outcome.deliveries.get(long_one, 0) == 1 else jq.timeline(events, long_one))
    t.expect("it is rendered once, and acknowledged", got=(outcome.executions.get(long_one, 0), long_one in outcome.acked),
             expected=(1, True), example=f"{CLUSTER_PAGES} pages")
    t.expect("a one-page invoice is acknowledged too", ok="booking-982" in outcome.acked,
             got="acknowledged" if "booking-982" in outcome.acked else "not acknowledged", expected="acknowledged")


# -- 13.publish_retry ------------------------------------------------------------------------------


class Abandoned(BaseException):
    """Raised into learner code that would otherwise retry forever after the check gave up on it."""


def _against_a_dead_publish(publish_with_retry, give_up_after_s: float, wait_s: float):
    """Run publish_with_retry against a publish that always times out, for at most wait_s. Returns (the
    times of its attempts, seconds it ran, what it did: returned/raised/not_started, still running)."""
    attempts = []
    abandoned = threading.Event()
    outcome: dict = {}

    def always_times_out(subject, payload, msg_id=None):
        if abandoned.is_set():
            raise Abandoned
        attempts.append(time.monotonic())
        outcome["last_error"] = nats.errors.TimeoutError()  # a new one each time: which one comes back is seen
        raise outcome["last_error"]

    def run():
        try:
            outcome["returned"] = publish_with_retry(always_times_out, "tasks.x", {"n": 0}, "msg-0",
                                                     give_up_after_s=give_up_after_s)
        except Abandoned:
            outcome["abandoned"] = True
        except NotImplementedError:
            outcome["not_started"] = True
        except Exception as error:
            outcome["raised"] = error

    thread = threading.Thread(target=run, daemon=True, name="check-13-gives-up")
    started = time.monotonic()
    thread.start()
    thread.join(wait_s * processes.patience())  # bounds a hang only: a loaded machine is waited for
    took = time.monotonic() - started
    running = thread.is_alive()
    if running:
        abandoned.set()
    return attempts, took, outcome, running


def _gives_up(t: Trial, publish_with_retry) -> None:
    """Against a publish that always times out: it must pause between attempts and give up in time."""
    attempts, took, outcome, running = _against_a_dead_publish(publish_with_retry, 1.0, 5)
    if outcome.get("not_started"):
        t.call(publish_with_retry, lambda *a, **k: None, "tasks.x", {}, "msg-0", give_up_after_s=0.0,
               during="publish_with_retry")  # reports "not started" the usual way
    example = "publish always raises nats.errors.TimeoutError; give_up_after_s=1.0"
    t.require("gives up: raises once give_up_after_s has passed", ok="raised" in outcome,
              got="still retrying after 5 s" if running else
              f"returned {outcome.get('returned')!r}" if "returned" in outcome else "did not raise",
              expected="the last error raised, within a few seconds", example=example,
              note="the caller must hear that the message was not published")
    raised = outcome["raised"]
    t.expect("re-raises the last error publish raised (not one of its own, not an earlier one)",
             ok=raised is outcome.get("last_error"),
             got="the last" if raised is outcome.get("last_error") else
             f"an earlier attempt's {type(raised).__name__}" if isinstance(raised, nats.errors.TimeoutError)
             else describe(raised),
             expected=f"the {type(outcome.get('last_error')).__name__} of attempt {len(attempts)}, the last", example=example,
             note="a bare `raise` in the except block that gives up re-raises the error just caught, so the caller "
                  "sees what JetStream said")
    # Given up in time: counted from its first attempt (its deadline is set before it), a retry that looks at
    # the clock between any two attempts makes at most one attempt once give_up_after_s has passed.
    late = [at for at in attempts if attempts and at - attempts[0] > 1.0]
    t.expect("gives up neither at once nor long after give_up_after_s", ok=took >= 0.5 and len(late) <= 1,
             got=f"raised after {took:.2f} s" if took < 0.5 or not late else
             f"{len(late)} attempts after give_up_after_s had passed, the last {late[-1] - attempts[0]:.2f} s "
             "after the first", expected="at least 0.5 s of retries, and at most one attempt after 1.0 s",
             example=example, note="look at the clock before every pause: once the next pause would take you past "
             "the deadline, raise" if late[1:] else None)
    t.require("pauses between attempts (a leader election is not helped by hammering)", ok=2 <= len(attempts) <= 50,
             got=f"{len(attempts)} attempts in {took:.2f} s", expected="2 to 50 attempts in about a second",
             example=example)
    _pauses_double_and_stay_short(t, publish_with_retry)


LONGEST_PAUSE_S = 0.75  # "stay under about half a second"


def _pauses_double_and_stay_short(t: Trial, publish_with_retry) -> None:
    """Three seconds of a dead publish: the pauses start near 50 ms, grow, and never pass about 0.5 s.
    The pauses are what the learner's code asked time.sleep for (not measured: a busy machine oversleeps);
    the gaps between attempts only when it pauses some other way."""
    asked: list[float] = []

    def note_pause(seconds, *args, **kwargs):
        if threading.current_thread().name == "check-13-gives-up":
            asked.append(float(seconds))

    with shared.intercepting(publish_with_retry, "sleep", note_pause, module=time):
        attempts, took, _, _ = _against_a_dead_publish(publish_with_retry, 3.0, 8)
    pauses = asked or [b - a for a, b in zip(attempts, attempts[1:])]
    shape = ", ".join(f"{p:.2f}" for p in pauses[:8]) + (" ..." if len(pauses) > 8 else "")
    ok = len(pauses) >= 3 and pauses[0] <= 0.2 and max(pauses) >= 2 * pauses[0] and max(pauses) <= LONGEST_PAUSE_S
    t.expect("the pauses start around 50 ms, double, and stay under about half a second", ok=ok,
             got=f"pauses of {shape} s" if pauses else f"{len(attempts)} attempt(s) in {took:.2f} s",
             expected="about 0.05, 0.1, 0.2, 0.4, then 0.5 s each",
             example="publish always raises nats.errors.TimeoutError; give_up_after_s=3.0",
             note="pause = min(pause * 2, 0.5): an election takes seconds, and a pause that keeps doubling "
                  "leaves the cluster idle long after it is back" if pauses and max(pauses) > LONGEST_PAUSE_S else None)


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
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            publisher.publish(subject, {"warmup": True})
            return
        except broker.TRANSIENT:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@exercise_check("13.publish_retry")
def publish_retry(t: Trial, publish_with_retry):
    _gives_up(t, publish_with_retry)
    if t.seed is None:  # which messages lose their ack: printed with a failure, to replay the run
        t.seed = random.randrange(1, 10**6)
    rng = random.Random(t.seed)
    with cluster_for_check() as cluster:
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
                try:
                    publish_with_retry(publish, "orders13.placed", {"n": n}, f"order-{n}", give_up_after_s=60.0)
                except Exception as error:  # noqa: BLE001 (the learner's function may raise anything)
                    attempts = len(publish.ids_seen.get(f"message {n}", []))
                    gave_up[f"message {n}"] = (f"{type(error).__name__} after {time.monotonic() - started:.1f} s, "
                                               f"{attempts} attempt(s)", f"your code raised {describe(error)}")
                if n == first_after_kill:
                    killed["answered_after_s"] = time.monotonic() - killed["at"]
            _until_the_stream_answers(publisher, "orders13.warmup")  # an answer that gave up left the election on
            note = (f"leader {killed.get('node')} SIGKILLed before message {first_after_kill}; "
                    f"{'the call gave up' if f'message {first_after_kill}' in gave_up else 'publishing resumed'} "
                    f"{killed.get('answered_after_s', float('nan')):.1f} s later")
            _judge_stored(t, cluster, "ORDERS13", total, "leader killed",
                          f"{total} messages, the leader SIGKILLed before message {first_after_kill}", note, gave_up)


# -- 13.choose: lab13/choose.py ---------------------------------------------------------------

from course.grading.checks.lab13 import choose as _choose  # noqa: E402,F401 (registers 13.choose)


# -- 13.quiz ---------------------------------------------------------------------------------------


@exercise_check("13.predict_killed_consumer")
def predict_killed_consumer_check(t: Trial, predict_killed_consumer):
    ask(t, "predict_killed_consumer", predict_killed_consumer, "b",
        "whether order 9812's receipt is sent after its consumer is SIGKILLed, by whom and when",
        "look at what the run measured: which process acknowledged it, on which delivery, and when")


@exercise_check("13.predict_slow_job")
def predict_slow_job_check(t: Trial, predict_slow_job):
    ask(t, "predict_slow_job", predict_slow_job, "b",
        "how many times booking 981's invoice is rendered when it outlives its AckWait",
        "look at what the run measured: how many deliveries, and did they overlap?")


@exercise_check("13.predict_backoff")
def predict_backoff_check(t: Trial, predict_backoff):
    ask(t, "predict_backoff", predict_backoff, "a",
        "when booking 981 is delivered, and what becomes of 981, 982 and 983",
        "look at what the run measured: each booking's reason and deliveries in the dead-letter stream")


@exercise_check("13.predict_republish")
def predict_republish_check(t: Trial, predict_republish):
    ask(t, "predict_republish", predict_republish, "b",
        "whether booking 981, republished with its first Nats-Msg-Id, is stored",
        "look at what the run measured: what did the ack say?")


@exercise_check("13.predict_failover")
def predict_failover_check(t: Trial, predict_failover):
    ask(t, "predict_failover", predict_failover, "b",
        "what happens to the publishes and the stored messages when the stream's leader is SIGKILLed",
        "look at what the run measured: failed attempts, messages stored, bookings confirmed")


@exercise_check("13.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5, q6):
    ask(t, "q1", q1, "b", "a handler that outlives its AckWait", "what did the invoice demo show before the exercise?")
    ask(t, "q2", q2, "c", "a publish that timed out during a failover", "the stream may have stored it; what makes a "
        "second copy harmless?")
    ask(t, "q3", q3, "a", "what Nats-Msg-Id promises", "which way does de-duplication cover: into the stream, or out of it?")
    ask(t, "q4", q4, "b", "Tiffin's receipts on a cluster", "if Tiffin's database is down, can an order be placed at all?")
    ask(t, "q5", q5, "b", "what a log's consumer can do with a message that always fails",
        "look at section 8's two log readers: what did each do at message 7, and what happened to 8 to 10?")
    ask(t, "q6", q6, "b", "which store a second team can read from the start",
        "look at section 8's last column: what did each store still hold once its reader was done?")
