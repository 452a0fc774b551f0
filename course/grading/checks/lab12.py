"""Lab 12: the StayHub capstone — the material's "check before you accept" list and its red flags.

    12.checkout            checkout is fast and the email still arrives (real HTTP, real workers); the
                           booking and its jobs are stored together or not at all (red flag: jobs
                           enqueued after the commit)
    12.confirmation_email  a worker killed after sending: exactly one email; a provider failing every
                           time: the dead-letter table after 8 attempts, with an alert; an impossible
                           address: dead at once (red flag: no duplicate protection)
    12.retry_policy        backoff with jitter, capped, and a limit on attempts (red flags: retries
                           forever, or immediately)
    12.invoice_worker      the practice ladder's invoice worker: one invoice per booking, none when cancelled
"""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import uuid
from datetime import datetime, timezone

import psycopg
from psycopg import sql as pgsql

from course.core import monitoring, queue
from course.infra.processes import wait_until
from course.programs.http import call as http_call
from course.core.queue import PermanentError
from course.programs import stayhub
from course.programs.email_provider import EmailProvider

from course.grading import faults
from course.grading.trial import NotStarted, Trial
from course.grading.checks import exercise_check, killpoint, rules
from course.grading.checks.quiz import ask

FAST_S = 1.2  # the material's target is ~0.4 s; inline the invoice alone would take 1.5 s
EMAIL_WITHIN_S = 20.0  # "the email arrives within seconds"; generous for a loaded machine
MISSING_BOOKING = 7_340_021  # no booking has this id


def _stayhub_box(t: Trial):
    box = t.sandbox()
    stayhub.install(box.conn)
    return box


def _bookings(conn, guests: list[int], *, cancelled: set[int] = frozenset()) -> list[int]:
    """Bookings stored directly (no card, no wait): the jobs under test need them to exist."""
    ids = []
    for n, guest in enumerate(guests):
        ids.append(conn.execute(
            "INSERT INTO bookings (guest_id, room_id, check_in, nights, total_cents, payment_ref, status) "
            "VALUES (%s, 1, %s, 2, 29000, %s, %s) RETURNING id",
            [guest, stayhub.CHECK_IN, f"auth_check{n}", "cancelled" if n in cancelled else "confirmed"]).fetchone()[0])
    return ids


def _job(booking_id: int, attempts: int = 1) -> queue.Job:
    return queue.Job(id=0, queue="default", type=faults.TASK, payload={"booking_id": booking_id}, priority=0,
                     attempts=attempts, max_attempts=stayhub.MAX_ATTEMPTS, lease=uuid.uuid4(),
                     lease_expires_at=datetime.now(timezone.utc))


def _started(t: Trial, handler, box) -> None:
    """A stub raises NotImplementedError at once: say "not started" rather than run real workers on it.

    The probe is a job for a booking that does not exist, in a transaction that is rolled back: a real
    handler stops (or raises something else) without sending or storing anything."""
    try:
        with box.conn.transaction(force_rollback=True):
            handler(_job(0), box.conn)
    except NotImplementedError:
        t.not_started = f"`{getattr(handler, '__name__', 'your handler')}` still raises NotImplementedError"
        raise NotStarted from None
    except Exception:  # noqa: BLE001 (anything else is for the real run to judge)
        pass


# -- 12.checkout ----------------------------------------------------------------------------------------


class _Injected(Exception):
    pass


def _counts(conn) -> tuple[int, int]:
    return conn.execute("SELECT (SELECT count(*) FROM bookings), (SELECT count(*) FROM jobs)").fetchone()


def _call_expecting_failure(t: Trial, checkout, conn, during: str):
    """Run the checkout while we break something; its exception is expected, anything it returns is noted."""
    try:
        return checkout(conn, 1, 1, 2)
    except NotImplementedError:
        t.call(checkout, conn, 1, 1, 2, during=during)  # reports "not started"
    except Exception:
        return None
    finally:
        with contextlib.suppress(psycopg.Error):
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()


@exercise_check("12.checkout")
def checkout(t: Trial, checkout):
    box = _stayhub_box(t)
    booking_id = t.call(checkout, box.conn, 1, 1, 2, during="checkout(conn, guest_id=1, room_id=1, nights=2)")
    t.require("returns the new booking's id", ok=isinstance(booking_id, int) and not isinstance(booking_id, bool),
              got=booking_id, example="checkout(conn, 1, 1, 2)")
    stored = stayhub.booking(box.conn, booking_id)
    t.require("the booking is stored", ok=stored is not None and stored.status == "confirmed", got=stored,
              example=f"SELECT * FROM bookings WHERE id = {booking_id}")
    jobs = box.conn.execute("SELECT type, payload FROM jobs ORDER BY type").fetchall()
    t.expect("three jobs: the email, the invoice, the channel-manager sync",
             got=sorted(job_type for job_type, _ in jobs), expected=sorted(stayhub.SIDE_JOBS),
             example="one checkout", note="everything the guest does not wait for becomes a job; nothing else")
    t.expect("each job carries the booking's id and nothing else", ok=jobs and all(
        payload == {"booking_id": booking_id} for _, payload in jobs), got=[p for _, p in jobs],
        expected=[{"booking_id": booking_id}] * 3, example="one checkout",
        note="the worker reads the booking fresh when it runs")

    # A crash between the booking and its jobs: here the first enqueue fails.
    box.conn.execute("DELETE FROM jobs")
    before = _counts(box.conn)
    box.conn.execute("""
        CREATE FUNCTION refuse_jobs() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'injected: the process died before the jobs were stored'; END $$;
        CREATE TRIGGER refuse_jobs BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION refuse_jobs();""")
    _call_expecting_failure(t, checkout, box.conn, "checkout while the jobs cannot be stored")
    box.conn.execute("DROP TRIGGER refuse_jobs ON jobs")
    bookings, jobs_left = _counts(box.conn)
    t.expect("if the jobs cannot be stored, neither is the booking (no paid booking without its email)",
             got=bookings - before[0], expected=0,
             example="an INSERT into jobs that fails, as a crash between the two writes would",
             note="a booking committed on its own, with the jobs enqueued after the commit, leaves a guest who paid "
                  "and will never get an email, an invoice or a sync: write them in the booking's transaction")

    # The other way round: the booking's commit fails after the jobs were written.
    box.conn.execute("""
        CREATE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'injected: the booking could not be committed'; END $$;
        CREATE CONSTRAINT TRIGGER refuse_commit AFTER INSERT ON bookings
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_commit();""")
    _call_expecting_failure(t, checkout, box.conn, "checkout whose commit fails")
    box.conn.execute("DROP TRIGGER refuse_commit ON bookings")
    bookings, jobs_left = _counts(box.conn)
    t.expect("if the booking does not commit, no job is left behind (no email for a booking that does not exist)",
             got=jobs_left, expected=0, example="the booking's COMMIT fails (a deferred constraint)",
             note="jobs written on another connection, or committed before the booking, survive its failure: use "
                  "the connection you are given, inside one transaction")

    # The real processes take ~6 s; they can only add failures to a checkout already wrong in-process.
    if all(result.passed for result in t.results):
        _fast_and_the_email_arrives(t, checkout, box)


def _fast_and_the_email_arrives(t: Trial, checkout, box) -> None:
    """The material's first test, for real: the learner's checkout served over HTTP, two workers."""
    started = []
    try:
        provider = EmailProvider.start(latency_s=stayhub.EMAIL_S, name="check-provider")
        started.append(provider)
        partner = stayhub.ChannelManager.start(latency_s=0.2, jitter_s=0.0, timeout_rate=0.0, name="check-partner")
        started.append(partner)
        api = stayhub.BookingApi.start(schema=box.schema, checkout=checkout, install=False, name="check-booking-api")
        started.append(api)
        workers = [stayhub.spawn_worker(box.schema, provider_url=provider.url, channel_manager_url=partner.url,
                                        name=f"check-stayhub-worker{n}", invoice_s=0.1) for n in range(2)]
        started.extend(workers)
        stayhub.wait_until_ready(box.conn, workers)
        replies = [api.book(guest_id=2, room_id=3, nights=1) for _ in range(2)]
        t.require("POST /bookings answers 201 with your checkout", ok=all(r.ok for r in replies),
                  got=[(r.status, r.error) for r in replies], expected="201, 201",
                  example="two checkouts through the booking API")
        fastest = min(r.seconds for r in replies)
        t.expect(f"checkout answers fast: under {FAST_S} s (the material: ~0.4 s)", ok=fastest < FAST_S,
                 got=f"{fastest:.2f} s (the faster of two)", expected=f"< {FAST_S} s",
                 example="POST /bookings, timed by the client",
                 note="only the card and the booking row belong in the request; the email (0.3 s), the invoice "
                      "(1.5 s) and the channel manager (3.6 s) are jobs")
        ids = {r.booking_id for r in replies}

        def given_up() -> list[str]:
            """Email jobs of these bookings that went to the dead-letter table: no use waiting for those."""
            return [f"booking {payload['booking_id']}: {error}" for payload, error in box.conn.execute(
                "SELECT payload, error FROM dead_jobs WHERE type = 'send_confirmation_email'") if
                payload.get("booking_id") in ids]

        def emails():
            counts = stayhub.emails_by_booking(provider.deliveries())
            return counts if all(counts[i] for i in ids) or given_up() else None

        try:
            counts = wait_until(emails, EMAIL_WITHIN_S, interval=0.2, what="both confirmation emails")
        except TimeoutError:
            counts = stayhub.emails_by_booking(provider.deliveries())
        got = {i: counts[i] for i in sorted(ids)}
        dead = given_up()
        t.expect("and the email still arrives: one per booking, within seconds", got=got,
                 expected={i: 1 for i in sorted(ids)}, example="two checkouts, two workers running StayHub's jobs",
                 note=("the email job gave up: " + "; ".join(dead)) if dead else None)
    finally:
        for thing in reversed(started):
            with contextlib.suppress(Exception):
                if thing.alive():
                    thing.kill()


# -- 12.confirmation_email --------------------------------------------------------------------------------


def _effects_by_job(result: faults.Run, booking_of: dict[int, int], counts) -> dict[int, int]:
    return {job_id: counts[booking_of[job_id]] for job_id in result.job_ids}


@exercise_check("12.confirmation_email")
def confirmation_email(t: Trial, send_confirmation, seed=None):
    box = _stayhub_box(t)
    _started(t, send_confirmation, box)
    provider = EmailProvider.start(latency_s=stayhub.EMAIL_S, name="check-provider")  # 300 ms, as StayHub's
    try:
        env = {stayhub.PROVIDER_URL_ENV: provider.url}
        # 0. A kill placed on purpose at each critical point, then (1.) seeded random rounds.
        _kills_on_cue(t, box, send_confirmation, provider, env)
        provider.reset()
        box.conn.execute("DELETE FROM confirmations")
        # 1. Workers killed after sending (and now and then while sending); one booking has two jobs (a
        #    person re-enqueued it by hand): every guest gets exactly one email.
        ids = _bookings(box.conn, [1, 2, 3, 1])
        payloads = [{"booking_id": ids[0]}] + [{"booking_id": b} for b in ids]
        scenario = faults.Scenario(send_confirmation, payloads, workers=2, concurrency=2, lease_s=1.0,
                                   faults=faults.Faults(kill_after_work=0.3, kill_mid_work=0.5, max_kills=3),
                                   env=env, timeout_s=60)
        result = faults.run(box, scenario, seed=seed)
        t.seed = result.seed
        faults.expect_finished(t, result)
        counts = stayhub.emails_by_booking(provider.deliveries())
        booking_of = {job_id: p["booking_id"] for job_id, p in zip(result.job_ids, payloads)}
        effects = _effects_by_job(result, booking_of, counts)
        faults.expect_no_job_lost(t, result, {j for j, n in effects.items() if n} | set(result.dead))
        faults.expect_no_duplicate_effect(t, result, effects, what="email")
        t.expect("each guest got exactly one email, workers killed after sending and while sending",
                 got={b: counts[b] for b in ids}, expected={b: 1 for b in ids},
                 example=f"4 bookings, booking {ids[0]} enqueued twice; {faults.fault_summary(result)}",
                 note="the same key every time (confirm:<booking id>), in your table and as the Idempotency-Key")

        # 2. The provider answers 503 to the first attempt, then works again: the email must still go out.
        #    (Two runs in this process, one after the other: what a worker does with a retry.)
        provider.reset()
        provider.configure(down=True, latency_s=0.05)
        [flaky] = _bookings(box.conn, [3])
        with _environment(env):
            first = _outcome(send_confirmation, _job(flaky, attempts=1), box.conn)
            provider.healthy()
            second = _outcome(send_confirmation, _job(flaky, attempts=2), box.conn)
        got = stayhub.emails_by_booking(provider.deliveries())[flaky]
        t.expect("a 503 on the first attempt, then the provider works: the email still goes out, once", got=got,
                 expected=1, example=f"booking {flaky}: attempt 1 while the provider answered 503 ({_said(first)}), "
                                     f"attempt 2 once it was back ({_said(second)})",
                 note="a row committed before the email is sent says 'sent' even when the send failed: insert it and "
                      "send in one transaction, so a failed send rolls the row back")

        # 3. An address that cannot exist: the provider answers 422, and retrying cannot help.
        [impossible] = _bookings(box.conn, [4])  # guest 4: nobody@stayhub.invalid
        with _environment(env):
            refused = _outcome(send_confirmation, _job(impossible), box.conn)
        t.expect("an impossible address ends the job at once: a PermanentError reaches the worker",
                 ok=isinstance(refused, PermanentError), got=_said(refused), expected="raised EmailRejected "
                 "(a PermanentError)", example="guest 4, nobody@stayhub.invalid: the provider answers 422",
                 note="let EmailRejected through: the worker dead-letters a PermanentError at once instead of "
                      "retrying it 8 times; catching it hides the problem from everyone")

        # 4. The provider is down for good: 8 attempts each, then the dead-letter table and an alert.
        provider.reset()
        provider.configure(down=True)
        failing = _bookings(box.conn, [1, 2])
        listener = psycopg.connect(box.conninfo, autocommit=True)
        try:
            listener.execute(pgsql.SQL("LISTEN {}").format(pgsql.Identifier(f"dead_jobs:{box.schema}")))
            scenario = faults.Scenario(send_confirmation, [{"booking_id": b} for b in failing], workers=2,
                                       concurrency=2, lease_s=1.0, max_attempts=stayhub.MAX_ATTEMPTS,
                                       retry_delay_s=0.02, env=env, timeout_s=60)
            result = faults.run(box, scenario, seed=t.seed)
            alerts = [note.payload for note in listener.notifies(timeout=1.0, stop_after=len(failing))]
        finally:
            listener.close()
        faults.expect_finished(t, result)
        faults.expect_poison_dead_lettered(t, result, set(result.job_ids), max_attempts=stayhub.MAX_ATTEMPTS)
        requests = {}
        for request in provider.requests():
            requests[request.to] = requests.get(request.to, 0) + 1
        t.expect("each attempt sends one request: 8 in all for a job that always fails (no retry loop inside)",
                 got=dict(sorted(requests.items())), expected={"priya@example.com": 8, "tomas@example.com": 8},
                 example="the provider answers 503 to everything",
                 note="let the exception reach the worker: the queue retries with backoff and counts the attempts")
        fired = monitoring.evaluate(monitoring.snapshot(box.conn), [monitoring.DeadLetters()])
        t.expect("an alert fires: a notification per dead job, and the dead-letter rule",
                 ok=len(alerts) == len(failing) and bool(fired),
                 got=f"{len(alerts)} notification(s); rule: {[a.message for a in fired]}",
                 expected="2 notifications; a dead-letter alert", example="the run above")
    finally:
        provider.kill()


def _in_flight(provider: EmailProvider) -> int:
    reply = http_call("GET", f"{provider.url}/health", timeout=5.0)
    return reply.data.get("requests_in_flight", 0) if reply.ok else 0


def _kills_on_cue(t: Trial, box, send_confirmation, provider: EmailProvider, env: dict[str, str]) -> None:
    """A worker SIGKILLed at each point where a crash can double an email, each followed by a re-run (the
    next attempt): after the send and before the commit, while the provider is delivering, after the commit
    and before the ack. Placed on cue, not at random, so no seed can miss one."""
    before_commit, mid_send, before_ack = _bookings(box.conn, [2, 3, 1])
    no_key = ("the first run's row was rolled back with the crash, so your table cannot remember this send: "
              "only the provider can recognise the repeat — send with idempotency_key= the same key as your row "
              "(stayhub.confirmation_key(booking_id)); the provider saw Idempotency-Keys {keys}")

    def emails(booking_id: int) -> int:
        return stayhub.emails_by_booking(provider.deliveries())[booking_id]

    def keys(booking_id: int) -> list:
        address = stayhub.booking(box.conn, booking_id).guest_email
        return [r.idempotency_key for r in provider.requests() if r.to == address]

    def judge(name: str, booking_id: int, example: str, note_if_doubled: str) -> None:
        got = emails(booking_id)
        t.expect(name, got=got, expected=1, example=example,
                 note=(note_if_doubled.format(keys=keys(booking_id)) if got > 1 else
                       "the guest got no email: the re-run must send when the first run's work was lost"
                       if got == 0 else None))

    # After the send, before the commit: a deferred trigger holds the commit until the worker is killed.
    killpoint.hold_commit(box.conn, "confirmations")
    try:
        what = killpoint.run_and_kill(box, send_confirmation, _job(before_commit),
                                      when=killpoint.waiting_at_commit(box), env=env)
    finally:
        killpoint.release_commit(box.conn, "confirmations")
    with _environment(env):
        again = _outcome(send_confirmation, _job(before_commit, attempts=2), box.conn)
    judge("a worker killed after the send, before the commit, then the job runs again: one email", before_commit,
          f"booking {before_commit}: attempt 1 SIGKILLed while its transaction commits ({what}), "
          f"then attempt 2 ({_said(again)})", no_key)

    # While the provider delivers: the request has arrived (it will be delivered), the reply never will.
    provider.configure(latency_s=1.0)
    try:
        what = killpoint.run_and_kill(box, send_confirmation, _job(mid_send),
                                      when=lambda name: _in_flight(provider) > 0, env=env)
        wait_until(lambda: _in_flight(provider) == 0, 10.0, interval=0.05, what="the provider's last delivery")
    finally:
        provider.configure(latency_s=stayhub.EMAIL_S)
    with _environment(env):
        again = _outcome(send_confirmation, _job(mid_send, attempts=2), box.conn)
    judge("a worker killed while the provider was delivering its email, then the job runs again: one email",
          mid_send, f"booking {mid_send}: attempt 1 SIGKILLed while its request was at the provider ({what}), "
                    f"then attempt 2 ({_said(again)})", no_key)

    # After the commit, before the ack: the whole first run happened, and the job comes back.
    with _environment(env):
        first = _outcome(send_confirmation, _job(before_ack), box.conn)
        again = _outcome(send_confirmation, _job(before_ack, attempts=2), box.conn)
    example = (f"booking {before_ack}: attempt 1 ran to the end ({_said(first)}) but was never acked, "
               f"then attempt 2 ({_said(again)})")
    judge("a worker killed after the commit, before the ack, then the job runs again: one email", before_ack,
          example, "a second run must find what the first one did: the same key every time (confirm:<booking id>), "
                   "in your table and as the Idempotency-Key; the provider saw Idempotency-Keys {keys}")
    t.expect("that re-run returns normally: the work is done, so the job is acked (not retried to the dead-letter "
             "table)", ok=first is None and again is None, got=f"attempt 1 {_said(first)}, attempt 2 {_said(again)}",
             expected="both returned", example=example,
             note="INSERT ... ON CONFLICT (key) DO NOTHING RETURNING key: no row back means an earlier run sent it; "
                  "return, do not raise" if again is not None else None)
    asked = len(keys(before_ack))
    t.expect("that re-run stops at its confirmations row: no second request to the provider", got=asked,
             expected=1, example=example,
             note="no row back from the INSERT means an earlier run already sent it: stop before calling the "
                  "provider (its memory of keys does not last forever; the row does)" if asked > 1 else None)

    # A booking that does not exist: nothing to send, ever.
    with _environment(env):
        missing = _outcome(send_confirmation, _job(MISSING_BOOKING), box.conn)
    t.expect("a job for a booking that does not exist raises a PermanentError (nothing to send, ever)",
             ok=isinstance(missing, PermanentError), got=_said(missing), expected="raised PermanentError",
             example=f"booking {MISSING_BOOKING}: stayhub.booking(conn, {MISSING_BOOKING}) is None",
             note="a job that can never succeed must not use up 8 attempts: raise PermanentError and the worker "
                  "dead-letters it at once")


@contextlib.contextmanager
def _environment(values: dict[str, str]):
    """These environment variables for the duration (the handler reads the provider's URL from one)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _outcome(handler, job, conn) -> BaseException | None:
    """Run one attempt in this process; what it raised (None: it returned), as a worker would see it."""
    try:
        handler(job, conn)
    except Exception as error:  # noqa: BLE001 (the learner's handler may raise anything)
        return error
    finally:
        with contextlib.suppress(psycopg.Error):
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
    return None


def _said(outcome: BaseException | None) -> str:
    return "returned" if outcome is None else f"raised {type(outcome).__name__}"


# -- 12.retry_policy --------------------------------------------------------------------------------------


def _draws(retry_delay, attempt: int, n: int) -> list[float]:
    return [retry_delay(attempt) for _ in range(n)]


@exercise_check("12.retry_policy")
def retry_policy(t: Trial, MAX_ATTEMPTS, retry_delay):
    attempts = t.answer("MAX_ATTEMPTS", MAX_ATTEMPTS)
    t.expect("8 attempts, then the dead-letter table (a cap: not retries forever)", got=attempts, expected=8,
             example="MAX_ATTEMPTS", note="a job that can never succeed must stop somewhere: StayHub's policy is 8")
    random.seed(12)  # the learner's jitter, if it uses the random module, becomes repeatable
    # The backoff-and-jitter rule is 07.backoff's, judged by the same checker (checks/rules.py).
    rules.expect_backoff_with_full_jitter(
        t, lambda n: t.call(_draws, retry_delay, n, rules.DRAWS, during=f"retry_delay({n}), {rules.DRAWS:,} times"),
        "retry_delay({n})", at_cap=rules.AT_CAP + (100, 1000))
    # The material's red flags, by name.
    means = {n: statistics.fmean(t.call(_draws, retry_delay, n, 300, during=f"retry_delay({n}), 300 times"))
             for n in (1, 7)}
    t.expect("not immediately: the first retry waits a while on average", ok=means[1] > 0.1,
             got=f"mean of retry_delay(1): {means[1]:.3f} s", expected="about 0.5 s",
             example="retry_delay(1)", note="an instant retry hits a provider that is down again at once")
    t.expect("backoff: the waits grow (attempt 7 waits far longer than attempt 1)",
             ok=means[1] > 0 and means[7] > 10 * means[1], got=f"means: attempt 1 {means[1]:.2f} s, attempt 7 {means[7]:.2f} s",
             expected="attempt 7's mean more than 10x attempt 1's", example="retry_delay(1) vs retry_delay(7)",
             note="double the ceiling each time: 1, 2, 4, ... s")


# -- 12.invoice_worker -------------------------------------------------------------------------------------


@exercise_check("12.invoice_worker")
def invoice_worker(t: Trial, render_invoice, seed=None):
    box = _stayhub_box(t)
    _started(t, render_invoice, box)
    missing = _outcome(render_invoice, _job(MISSING_BOOKING), box.conn)
    t.expect("a job for a booking that does not exist ends at once: nothing to do (no error the queue would retry)",
             ok=missing is None or isinstance(missing, PermanentError), got=_said(missing),
             expected="returned (or raised PermanentError)",
             example=f"booking {MISSING_BOOKING}: stayhub.booking(conn, {MISSING_BOOKING}) is None",
             note="(A): no booking is nothing to do; any other error is retried 8 times, then dead-lettered")
    env = {stayhub.INVOICE_S_ENV: "0.3"}
    # 1. Two jobs for each booking, side by side: the two runs overlap.
    pairs = _bookings(box.conn, [1, 2, 3])
    payloads = [{"booking_id": b} for b in pairs for _ in range(2)]
    result = faults.run(box, faults.Scenario(render_invoice, payloads, workers=2, concurrency=2, lease_s=2.0,
                                             env=env, timeout_s=60), seed=seed)
    t.seed = result.seed
    faults.expect_finished(t, result)
    counts = stayhub.invoices_by_booking(box.conn)
    t.expect("two runs at the same moment for one booking: still one invoice", got={b: counts[b] for b in pairs},
             expected={b: 1 for b in pairs}, example="render_invoice twice for each booking, both running at once",
             note="(B): checking first is not enough while another run is between its check and its insert: take "
                  "the booking's row lock (SELECT ... FOR NO KEY UPDATE) in the transaction, then check")
    # 2. Workers killed after the work and during it; one booking cancelled.
    singles = _bookings(box.conn, [1, 2, 3, 1, 2], cancelled={4})
    env = {stayhub.INVOICE_S_ENV: "0.1"}
    result = faults.run(box, faults.Scenario(render_invoice, [{"booking_id": b} for b in singles], workers=2,
                                             concurrency=2, lease_s=1.0, env=env, timeout_s=60,
                                             faults=faults.Faults(kill_after_work=0.4, kill_mid_work=0.2,
                                                                  max_kills=3)),
                        seed=t.seed)
    faults.expect_finished(t, result)
    counts = stayhub.invoices_by_booking(box.conn)
    confirmed, cancelled = singles[:4], singles[4]
    t.expect("a run killed after its work is followed by one that does nothing: one invoice each",
             got={b: counts[b] for b in confirmed}, expected={b: 1 for b in confirmed},
             example=f"workers SIGKILLed after rendering, before the ack; {faults.fault_summary(result)}",
             note="(A): an invoice that exists already means there is nothing left to do")
    t.expect("a cancelled booking gets no invoice", got=counts[cancelled], expected=0,
             example=f"booking {cancelled}, cancelled before its job ran", note="(A): skip it")


# -- 12.quiz --------------------------------------------------------------------------------------------------


@exercise_check("12.quiz")
def quiz(t: Trial, q1, q2, q3, q4):
    ask(t, "q1", q1, {"c", "d", "e"}, "which steps of POST /bookings become jobs",
        "which results does the guest need before the page can say 'Confirmed'?")
    ask(t, "q2", q2, "b", "Maya's 'charge later' idea", "what happens when a card is declined after the guest left?")
    ask(t, "q3", q3, "a", "the order of events when the provider answers 503 every time",
        "the worker has to call before anything can fail, and a person redrives only after the alert")
    ask(t, "q4", q4, "b", "a worker killed after the provider accepted the email",
        "what does the provider do with a second request carrying the same Idempotency-Key?")
