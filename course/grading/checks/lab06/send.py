"""06.send_confirmation: the learner's handler and the reference run on the same booking against the same
email provider, through sequences of deliveries drawn from everything the statement allows (the job run
once, delivered again after it finished, enqueued twice; the provider down, or delivering and its answer
never arriving, and the worker retrying; the worker dying after the send and before its commit; a guest
whose address no provider takes; other bookings beside it); then with a second worker running the same job
between its statements; killed between any two of its steps (the send included) and run again; and last
Lina's acceptance test, in worker processes SIGKILLed after sending (acceptance.py).

The provider of the first stages is the course's own (course.programs.email_provider: its mailbox, its
Idempotency-Key memory, its HTTP face) served from a thread of the check, so that the check can make it
refuse, lose an answer, or see the worker die, at the moment it chooses.

Free, and not compared: the email's subject and body (confirmation_email writes them), how many requests
reach the provider (a `processed` row of StayHub's second layer may stop a re-run before it asks), what the
handler returns, the rows of `processed`.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import psycopg
from psycopg import sql

from course.infra import processes
from course.programs import sql as lab_sql
from course.programs.email_provider import EmailProvider, Mailbox, ProviderHandler, ProviderServer, Settings, send_email

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks import exercise_check
from course.grading.checks.lab06 import stayhub
from course.grading.checks.lab06.acceptance import Inbox, the_acceptance_test
from course.grading.snapshot import Reader
from course.grading.trial import Attempt, Trial

DEFAULT_SEED = 6
SCENARIOS = 24  # three of each family: each run of the learner's handler renders its email (50 ms)
SHRINK_TRIES = 24
PROVIDER_LATENCY_S = 0.02

# -- a provider the check steers ------------------------------------------------------------------------------


class _Quiet(ProviderHandler):
    def log_message(self, format: str, *args) -> None:  # no request log in the learner's notebook
        pass


class _Mailbox(Mailbox):
    """The provider's memory, with what the check makes happen: its answer lost after it delivered, and a
    worker that dies once its email is delivered (`after_delivery`); a dead worker's requests deliver nothing."""

    def __init__(self):
        super().__init__(Settings(latency_s=0.0, seed=1))
        self.lose_answer = False
        self.after_delivery: Callable[[], None] | None = None
        self.dead = False

    def deliver(self, email: dict, key: str | None) -> tuple[int, dict, str]:
        if self.dead:
            return 503, {"error": "(the worker that sent this was dead: nothing arrives from it)"}, "dead"
        status, body, outcome = super().deliver(email, key)
        if self.after_delivery is not None and outcome == "delivered":
            self.after_delivery()
        if self.lose_answer and status == 200:
            return 503, {"error": "the answer was lost on its way back (injected); the email was delivered"}, outcome
        return status, body, outcome


class Provider(ProviderServer):
    """The course's email provider, served from a thread of the check."""

    def __init__(self):
        super().__init__(0, Settings())
        self.RequestHandlerClass = _Quiet
        self.mailbox = _Mailbox()
        self.thread = threading.Thread(target=self.serve_forever, name="lab06-provider", daemon=True)
        self.thread.start()

    def reset(self, mode: str = "up") -> None:
        self.mailbox.reset(settings=False)
        self.mode(mode)
        self.mailbox.after_delivery, self.mailbox.dead = None, False

    def mode(self, mode: str) -> None:
        self.mailbox.configure({"down": mode == "down"})
        self.mailbox.lose_answer = mode == "lost"

    def deliveries(self) -> list[dict]:
        return self.mailbox.copy("deliveries")

    def requests(self) -> list[dict]:
        return self.mailbox.copy("requests")

    def close(self) -> None:
        self.shutdown()
        self.server_close()


# -- a booking's deliveries, in the learner's words -------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    kind: str  # "first", "again" (the job delivered again after it finished), "retry" (happens only if the run
    #            before raised, as a worker retries), "other job" (a second job for the same booking)
    provider: str = "up"  # "up", "down" (503 at once), "lost" (it delivers, and its answer never arrives)
    crash: bool = False  # the worker dies after this run's work, before its transaction commits

    def told(self, attempt: int) -> str:
        what = {"first": f"attempt {attempt}", "again": f"the job delivered again (attempt {attempt})",
                "retry": f"if it raised, the worker's retry (attempt {attempt})",
                "other job": "a second job for the same booking"}[self.kind]
        if self.provider == "down":
            what += " while the provider is down (503)"
        elif self.provider == "lost":
            what += " while the provider delivers and its answer never arrives"
        if self.crash:
            what += ", then the worker dies before its transaction commits"
        return what


@dataclass(frozen=True)
class Sends:
    runs: tuple[Run, ...] = (Run("first"),)
    booking: int = stayhub.FIRST_BOOKING
    attempt: int = 1
    impossible: bool = False  # the guest's address is one no provider takes (422)
    others: int = 0  # other bookings in the table

    @property
    def address(self) -> str:
        return "priya@no-such-domain.invalid" if self.impossible else stayhub.email_of("Priya", self.booking)

    def told(self) -> str:
        told = f"booking {self.booking} (guest {self.address})"
        if self.others:
            told += f" and {self.others} other booking{'s' if self.others > 1 else ''}"
        attempts = self.attempt
        steps = []
        for run in self.runs:
            if run.kind in ("again", "retry"):
                attempts += 1
            steps.append(run.told(attempts if run.kind != "other job" else 1))
        return told + "; " + "; then ".join(steps)

    def shrinks(self) -> Iterator["Sends"]:
        for n in range(len(self.runs) - 1, 0, -1):
            yield replace(self, runs=self.runs[:n])
        for n, run in enumerate(self.runs):
            for simpler in (replace(run, crash=False), replace(run, provider="up")):
                if simpler != run:
                    yield replace(self, runs=self.runs[:n] + (simpler,) + self.runs[n + 1:])
        if self.others:
            yield replace(self, others=0)
        if self.attempt != 1:
            yield replace(self, attempt=1)
        if self.booking != stayhub.FIRST_BOOKING:
            yield replace(self, booking=stayhub.FIRST_BOOKING)


def install(sends: Sends) -> sql.Composable:
    rows = [[sql.Literal(sends.booking), sql.Literal("Priya"), sql.Literal(sends.address), sql.Literal(3)]]
    for n in range(sends.others):
        guest = stayhub.GUESTS[1 + n]
        rows.append([sql.Literal(sends.booking + 1 + n), sql.Literal(guest),
                     sql.Literal(stayhub.email_of(guest, sends.booking + 1 + n)), sql.Literal(1 + n)])
    return sql.SQL("DELETE FROM processed; DELETE FROM jobs; INSERT INTO hotels (id, name, rooms_left) VALUES "
                   "(42, 'Casa do Rio', 40); INSERT INTO bookings (id, guest, email, nights, hotel_id) "
                   ) + diff.values([[*row, sql.Literal(42)] for row in rows])


# -- drawing them ------------------------------------------------------------------------------------------------


def families() -> list[Callable[[random.Random], Sends]]:
    def base(rng, runs, **fields):
        return Sends(tuple(runs), booking=rng.choice([stayhub.FIRST_BOOKING, 981, 42, 70001]),
                     attempt=rng.choice([1, 1, 3]), others=rng.choice([0, 0, 1, 2]), **fields)

    def once(rng):
        return base(rng, [Run("first")])

    def again(rng):  # it finished, the worker died before the ack: the job comes back
        return base(rng, [Run("first"), Run("again")] + [Run("again")] * rng.choice([0, 1]))

    def twice(rng):  # the booking enqueued twice
        return base(rng, [Run("first"), Run("other job", crash=rng.random() < 0.3)])

    def down(rng):  # the provider down at the first attempt: the worker retries
        return base(rng, [Run("first", "down"), Run("retry")])

    def lost(rng):  # the provider delivered, its answer never came: the worker retries
        return base(rng, [Run("first", "lost"), Run("retry", rng.choice(["up", "lost"])), Run("retry")])

    def crash(rng):  # sent, then the worker died before its commit: the job comes back
        return base(rng, [Run("first", crash=True), Run("again", crash=rng.random() < 0.3), Run("again")])

    def impossible(rng):  # an address no provider takes: the error goes back to the worker, no retry helps
        return base(rng, [Run("first")], impossible=True)

    def mixed(rng):
        runs = [Run("first", rng.choice(["up", "down", "lost"]), rng.random() < 0.3)]
        for _ in range(rng.randint(1, 3)):
            runs.append(Run(rng.choice(["again", "retry", "other job"]), rng.choice(["up", "up", "down", "lost"]),
                            rng.random() < 0.2))
        return base(rng, runs)

    return [once, again, twice, down, lost, crash, impossible, mixed]


# -- one play of the deliveries ------------------------------------------------------------------------------------


def reference(url: str) -> Callable:
    """The solution's send_confirmation, sending to `url`: a processed row, then the send with the key that names
    the effect, in one transaction (the email rendered as the notebook's confirmation_email renders it)."""
    return lambda handed: lambda conn: _reference(url, handed, conn)


def _reference(url: str, handed, conn: psycopg.Connection) -> Attempt:
    booking_id = handed.payload["booking_id"]
    key = f"confirm:{booking_id}"
    try:
        with conn.transaction():
            if not conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key]).rowcount:
                return Attempt()
            guest, email, nights, hotel = conn.execute(
                "SELECT b.guest, b.email, b.nights, h.name FROM bookings b JOIN hotels h ON h.id = b.hotel_id "
                "WHERE b.id = %s", [booking_id]).fetchone()
            send_email(url, email, f"Your StayHub booking #{booking_id} is confirmed",
                       f"Hello {guest}, your {nights} night(s) at {hotel} are booked. See you soon!",
                       idempotency_key=key)
        return Attempt()
    except Exception as error:  # noqa: BLE001 (what the provider answered)
        return Attempt(error=f"{type(error).__name__}: {error}", error_type=type(error).__name__,
                       error_bases=tuple(kind.__name__ for kind in type(error).__mro__))


@dataclass(frozen=True)
class Seen:
    raised: tuple[str | None, ...]  # each run's error (None: it returned; "not retried": it never ran)
    permanent: tuple[bool, ...]  # whether each run's error was a PermanentError (which a worker never retries)
    emails: tuple[str, ...]  # the addresses the provider delivered to, in order
    keys: tuple[tuple[str, str | None], ...]  # (address, Idempotency-Key) of every request that reached it
    state: dict


NOT_RETRIED = "(not retried: the run before returned normally)"


def play(sends: Sends, handler: Callable, conn: psycopg.Connection,
         provider: Provider) -> tuple[tuple[str | None, ...], tuple[bool, ...]]:
    """The runs, one after the other, as a worker makes them: each run's error, and whether it was permanent."""
    job = stayhub.job(sends.booking, attempts=sends.attempt)
    last, raised, permanent = job, [], []
    for run in sends.runs:
        if run.kind == "retry" and raised and raised[-1] is None:
            raised.append(NOT_RETRIED)
            permanent.append(False)
            continue
        handed = (job if run.kind == "first" else stayhub.job(sends.booking, job_id=2) if run.kind == "other job"
                  else stayhub.redelivered(last))
        last = handed if run.kind != "other job" else last
        provider.mode(run.provider)
        if run.crash:
            with conn.transaction():
                done = handler(handed)(conn)
                raise psycopg.Rollback  # psycopg ends the block here: the worker's transaction is gone
        else:
            done = handler(handed)(conn)
        raised.append(done.error)
        permanent.append("PermanentError" in done.error_bases)
    provider.mode("up")
    return tuple(raised), tuple(permanent)


class Runner:
    def __init__(self, t: Trial, box, answer: Callable, provider: Provider):
        self.t, self.box, self.answer, self.provider = t, box, answer, provider
        self.watch = box.connect()
        self.reader = Reader.of(box.conn, only=("bookings", "hotels", "loyalty_points"))

    def learner(self, handed) -> Callable[[psycopg.Connection], Attempt]:
        return lambda conn: self.t.attempt(self.answer, handed, conn)

    def reset(self, sends: Sends) -> None:
        diff.clear(self.watch, self.reader)
        self.watch.execute(install(sends))
        self.provider.reset()

    def seen(self, raised: tuple, permanent: tuple) -> Seen:
        return Seen(raised, permanent, tuple(d["to"] for d in self.provider.deliveries()),
                    tuple((r["to"], r["idempotency_key"]) for r in self.provider.requests() if r["to"]),
                    self.reader.read(self.watch))

    def run(self, sends: Sends, handler: Callable) -> Seen:
        self.reset(sends)
        try:
            raised, permanent = play(sends, handler, self.box.conn, self.provider)
        finally:
            if self.box.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                self.box.conn.rollback()
            if not self.box.conn.autocommit:
                self.box.conn.autocommit = True
        return self.seen(raised, permanent)

    def close(self) -> None:
        diff.clear(self.watch, self.reader)
        self.watch.execute("DELETE FROM processed; DELETE FROM jobs")
        self.watch.close()


# -- the checks, by rule (labs.toml names each) ----------------------------------------------------------------

SENDS = "sends the booking's guest one email"
KEY = "sends with Idempotency-Key confirm:<booking id>, the same on every run"
AGAIN = "the job delivered again after it finished: still one email"
OTHER_JOB = "a second job for the same booking (it was enqueued twice): still one email"
PROPAGATE = "raises when the provider did not accept the email (so that the worker retries)"
RETRY = "the provider down, or its answer lost, at the first attempt: the retry sends one email in all"
CRASH = "the first run's database writes were lost after the provider accepted the email: the re-run sends no second email"
DONE = "a run after the email went out returns normally: the job is acked, not retried"
UNTOUCHED = "changes no booking and no hotel"
BESIDE = "two workers running the same job at the same moment: one email"
KILLED = "a worker killed between any two of its steps (the send included), then the job runs again: one email"

CHECKS = (SENDS, KEY, AGAIN, OTHER_JOB, PROPAGATE, RETRY, CRASH, DONE, UNTOUCHED, BESIDE, KILLED)


def _failed(error: str | None) -> bool:
    return error is not None and error != NOT_RETRIED


def judge(sends: Sends, ours: Seen, theirs: Seen) -> diff.Finding | None:
    guest = sends.address
    elsewhere = [to for to in ours.emails if to != guest]
    if elsewhere:
        return diff.Finding(SENDS, got=f"an email to {elsewhere[0]}", expected=f"emails to {guest} only",
                            note="send to the job's booking's guest: confirmation_email(conn, job.payload['booking_id'])")
    for n, (mine, wanted) in enumerate(zip(ours.raised, theirs.raised)):
        run = sends.runs[n]
        if not _failed(mine) and _failed(wanted) and mine != NOT_RETRIED:
            return diff.Finding(PROPAGATE, got=f"run {n + 1} returned normally", expected=f"an exception ({wanted})",
                                note="a handler that returns is acked: the job is deleted, and if the email did not "
                                     "go out, the guest never gets it. Let the error propagate")
        if _failed(mine) and _failed(wanted) and ours.permanent[n] and not theirs.permanent[n]:
            return diff.Finding(PROPAGATE, got=f"run {n + 1} raised {mine}, a PermanentError",
                                expected=f"the provider's own error, which a worker retries ({wanted})",
                                note="a PermanentError is dead-lettered at once, never retried: the guest never gets "
                                     "an email the provider would have taken a minute later. Let the provider's "
                                     "error through as it is")
        if _failed(mine) and _failed(wanted) and theirs.permanent[n] and not ours.permanent[n]:
            return diff.Finding(PROPAGATE, got=f"run {n + 1} raised {mine.split(':', 1)[0]}, which the worker retries",
                                expected=f"the provider's own error, which the queue dead-letters at once ({wanted})",
                                note="the provider refused this email for good (a PermanentError): the queue "
                                     "dead-letters it, where someone fixes the address. Raised as another error, it is "
                                     "retried, and refused again, until its attempts run out. Let the provider's "
                                     "error through as it is")
        if _failed(mine) and not _failed(wanted) and wanted != NOT_RETRIED:
            name = DONE if n > 0 or run.kind != "first" else SENDS
            return diff.Finding(name, got=f"run {n + 1} raised {mine}", expected="it returns normally", note=(
                "an earlier run sent it (the provider answers a repeated key with the first answer, or your "
                "processed row says so): the work is done, return" if name == DONE else None))
    mine, wanted = ours.emails.count(guest), theirs.emails.count(guest)
    keys = [key for to, key in ours.keys if to == guest]
    if mine > wanted:
        return _doubled(sends, ours, keys, mine, wanted)
    if mine < wanted:
        return diff.Finding(SENDS, got=f"{mine} email(s) to {guest}", expected=f"{wanted}", note=(
            "a mark committed before the send stops the retry, and the guest never hears from us: send first, "
            "and let a failure roll your row back" if any(_failed(r) for r in ours.raised) else None))
    wrong = [key for key in keys if key != f"confirm:{sends.booking}"]
    if wrong:
        return diff.Finding(KEY, got=f"Idempotency-Key {wrong[0]!r}", expected=f"'confirm:{sends.booking}'",
                            note="the key names the effect (this booking's confirmation), the same from any run of "
                                 "any job: the provider, support tools and later StayHub code all use it")
    if ours.state != theirs.state:
        return diff.Finding(UNTOUCHED, got="bookings or hotels changed", expected="unchanged",
                            note="sending the confirmation changes nothing in the booking or its hotel")
    return None


def _doubled(sends: Sends, ours: Seen, keys: list, mine: int, wanted: int) -> diff.Finding:
    """What the runs were decides which rule the second email broke: a crash before the commit, a second job,
    a retry after a failed or lost answer, or the job delivered again."""
    seen_keys = f"the provider saw Idempotency-Keys {keys}"
    if not any(keys):
        note = "the provider got no Idempotency-Key, so it cannot tell a repeat from a new email"
    else:
        note = f"{seen_keys}. The key must name the effect — this booking's confirmation — and be the same on every run"
    if any(r.crash for r in sends.runs):
        name, note = CRASH, ("a row in our database is rolled back with the crash, so it cannot remember this send: "
                             f"only the provider can recognise the repeat; {seen_keys}")
    elif any(r.kind == "other job" for r in sends.runs):
        name = OTHER_JOB
    elif any(r.provider != "up" for r in sends.runs):
        name = RETRY
    else:
        name = AGAIN
    return diff.Finding(name, got=f"{mine} emails to {sends.address}", expected=f"{wanted}", note=note)


# -- a second worker beside it; killed and run again ------------------------------------------------------------

RACE = Sends()


class SendArena(interleave.Arena):
    """The arena, with the emails the provider delivered read as part of what a run left."""

    def __init__(self, runner: Runner):
        super().__init__(runner.box.conn, runner.box.connect, runner.reader, install, lambda value: None)
        self.provider = runner.provider

    def reset(self, scenario: Sends) -> None:
        super().reset(scenario)
        self.provider.reset()

    def read(self):
        return {**super().read(), "emails": {(n,): d["to"] for n, d in enumerate(self.provider.deliveries())}}


def beside(runner: Runner, url: str) -> tuple[diff.Finding, str] | None:
    """Worker B runs the same job between the answer's statements, or holds it open (its email sent, its
    transaction not yet committed) while the answer runs: the guest gets one email."""
    first = stayhub.job(RACE.booking)
    arena = SendArena(runner)
    act = interleave.Act("worker B ran the same job (the reference send_confirmation) and committed",
                         lambda conn: reference(url)(first)(conn).error or "returned")
    hold = interleave.InTransaction("worker B is running the same job (the reference): its email is sent, its "
                                    "transaction not yet committed", lambda conn: reference(url)(first)(conn).error)
    learner = runner.learner(first)
    try:
        said = arena.count(learner, RACE)
        for point in range(2, len(said) + 1):
            got = arena.between(learner, RACE, act, point)
            if got is not None and len(got.state["emails"]) != 1:
                return _twice(got), (f"{RACE.told()}; just before your statement {point} ({got.statements[point - 1]}), "
                                     f"after your statement {point - 1} ({got.statements[point - 2]}): {act.told}")
        got = arena.under(learner, RACE, hold)
        if len(got.state["emails"]) != 1:
            return _twice(got), f"{RACE.told()}; {hold.told}; yours runs meanwhile"
    finally:
        arena.close()
    return None


def _twice(got: diff.Outcome) -> diff.Finding:
    count = len(got.state["emails"])
    return diff.Finding(BESIDE, got=f"{count} emails", expected="1", note=(
        "each worker saw nothing sent yet, and each sent: with the same Idempotency-Key (confirm:<booking id>) "
        "the provider answers the second with the first email" if count > 1 else
        "the guest got no email: a run must send unless an earlier one committed that it did"))


def killed(runner: Runner) -> tuple[diff.Finding, str] | None:
    """The answer killed just before each of its statements after the first, and once at the provider, the
    moment its email is delivered (its answer never reaches the dead worker); then the job delivered again."""
    first = stayhub.job(RACE.booking)
    steps = _killed_at(runner, first, 0)[0]
    points = [*range(2, len(steps) + 1), "send"]
    for point in points:
        said, emails = _killed_at(runner, first, point)
        if emails != 1:
            where = ("while the provider delivered its email (the answer never reached it)" if point == "send" else
                     f"just before your statement {point} ({said[point - 1]}), after your statement {point - 1} "
                     f"({said[point - 2]})")
            return diff.Finding(KILLED, got=f"{emails} email(s) to {RACE.address}", expected="1", note=(
                "the first run's database writes died with it, so only the provider can recognise the repeat: "
                f"send with idempotency_key='confirm:{RACE.booking}'" if emails > 1 else
                "a row committed before the send, and the worker killed before sending: the re-run found the row and "
                "sent nothing. Send first, in the transaction that writes the row")), \
                f"{RACE.told()}; the worker killed {where}; then the job delivered again (attempt 2)"
    return None


def _killed_at(runner: Runner, first, point) -> tuple[list[str], int]:
    runner.reset(RACE)
    conn = runner.box.connect()
    kill = interleave.KillPoint(runner.watch, conn, point if isinstance(point, int) else 0)
    if point == "send":
        def die():  # in the provider's thread: the worker is gone once its email is delivered
            runner.provider.mailbox.dead = True
            kill.dead = True
            runner.watch.execute("SELECT pg_terminate_backend(%s)", [kill.pid])
        runner.provider.mailbox.after_delivery = die
    try:
        with kill.watching():
            runner.learner(first)(conn)
    except interleave.Killed:
        pass
    finally:
        conn.close()
        runner.provider.mailbox.after_delivery, runner.provider.mailbox.dead = None, False
    if point:
        processes.wait_until(lambda: not runner.watch.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                                                              [kill.pid]).fetchone()[0], 10, what="the dead session's end")
        with runner.box.connect() as again:
            runner.learner(stayhub.redelivered(first))(again)
    return kill.steps, [d["to"] for d in runner.provider.deliveries()].count(RACE.address)


# -- the check -----------------------------------------------------------------------------------------------------


@exercise_check("06.send_confirmation")
def send_confirmation_check(t: Trial, send_confirmation, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    box.conn.execute(lab_sql.query("lab06", "tables"))
    provider = Provider()
    runner = Runner(t, box, send_confirmation, provider)
    verdicts = diff.Verdicts(t, CHECKS)

    def compare(sends: Sends) -> diff.Finding | None:
        return judge(sends, runner.run(sends, runner.learner), runner.run(sends, reference(provider.url)))

    try:
        with processes.environment({stayhub.PROVIDER_URL_ENV: provider.url}):  # as in a worker
            diff.search(verdicts, diff.in_turn(families()), compare, seed=t.seed, count=SCENARIOS,
                        shrink_tries=SHRINK_TRIES)
            if compare(RACE) is None:  # the stages below build on an answer right on its own
                for found in (beside(runner, provider.url), killed(runner)):
                    if found is not None:
                        verdicts.add(*found)
    finally:
        runner.close()
        provider.close()
    verdicts.report()
    if all(result.passed for result in t.results):
        acceptance(t, box, send_confirmation, seed)


def acceptance(t: Trial, box, send_confirmation, seed) -> None:
    box.conn.execute("DELETE FROM jobs; DROP TABLE loyalty_points, processed, bookings, hotels")
    bookings = stayhub.install_stayhub(box.conn)
    real = EmailProvider.start(latency_s=PROVIDER_LATENCY_S, seed=1, name="lab06-check-provider")
    try:
        the_acceptance_test(t, box, send_confirmation, Inbox(box.conn, real), real, bookings[4:14], seed)
    finally:
        real.stop()
