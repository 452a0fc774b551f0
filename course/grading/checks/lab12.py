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
import random
import statistics
import tempfile
import threading
from pathlib import Path

import psycopg
from psycopg import sql as pgsql

from course.core import monitoring, queue
from course.infra import processes
from course.infra.processes import wait_until
from course.core.queue import PermanentError
from course.programs import booking_api, channel_manager, stayhub
from course.programs.email_provider import EmailProvider

from course.grading import faults
from course.grading.trial import NotStarted, Trial
from course.grading.faults import killpoint
from course.grading.checks import exercise_check, shared
from course.grading.checks.quiz import ask

FAST_S = 1.2  # the material's target is ~0.4 s; inline the invoice alone would take 1.5 s
EMAIL_WITHIN_S = 20.0  # "the email arrives within seconds"; generous for a loaded machine
MISSING_BOOKING = 7_340_021  # no booking has this id


def _stayhub_box(t: Trial):
    box = t.scratch()
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
    return shared.booking_job(booking_id, attempts, max_attempts=stayhub.MAX_ATTEMPTS)


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

    # The card is charged before the booking's transaction opens (it is another company's server).
    box.conn.execute("DELETE FROM jobs")
    shared.expect_called_outside_any_transaction(
        t, checkout, lambda: t.call(checkout, box.conn, 2, 3, 1, during="checkout(conn, 2, 3, 1)"), box.conn,
        name="charge", module=stayhub, what="stayhub.charge (the card, ~300 ms at the payment provider)",
        call="checkout(conn, guest_id=2, room_id=3, nights=1)")
    # The booking and its jobs: stored together or not at all (the same rule as 02 and 05).
    shared.expect_jobs_in_the_business_transaction(
        t, lambda c: checkout(c, 1, 1, 2), box.conn, table="bookings", thing="booking",
        told="the guest is not told 'booking confirmed'", gets="an email, an invoice or a sync",
        call="checkout(conn, 1, 1, 2)")

    # The real processes take ~6 s; they can only add failures to a checkout already wrong in-process.
    if all(result.passed for result in t.results):
        _fast_and_the_email_arrives(t, checkout, box)


def _fast_and_the_email_arrives(t: Trial, checkout, box) -> None:
    """The material's first test, for real: the learner's checkout served over HTTP, two workers."""
    started = []
    try:
        provider = EmailProvider.start(latency_s=stayhub.EMAIL_S, name="check-provider")
        started.append(provider)
        partner = channel_manager.ChannelManager.start(latency_s=0.2, jitter_s=0.0, timeout_rate=0.0,
                                                       name="check-partner")
        started.append(partner)
        api = booking_api.BookingApi.start(schema=box.schema, checkout=checkout, install=False,
                                           name="check-booking-api")
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
        with processes.environment(env):
            first = shared.outcome(send_confirmation, _job(flaky, attempts=1), box.conn)
            provider.healthy()
            second = shared.outcome(send_confirmation, _job(flaky, attempts=2), box.conn)
        got = stayhub.emails_by_booking(provider.deliveries())[flaky]
        t.expect("a 503 on the first attempt, then the provider works: the email still goes out, once", got=got,
                 expected=1, example=f"booking {flaky}: attempt 1 while the provider answered 503 ({shared.said(first)}), "
                                     f"attempt 2 once it was back ({shared.said(second)})",
                 note="a row committed before the email is sent says 'sent' even when the send failed: insert it and "
                      "send in one transaction, so a failed send rolls the row back")

        # 3. An address that cannot exist: the provider answers 422, and retrying cannot help.
        [impossible] = _bookings(box.conn, [4])  # guest 4: nobody@stayhub.invalid
        with processes.environment(env):
            refused = shared.outcome(send_confirmation, _job(impossible), box.conn)
        t.expect("an impossible address ends the job at once: a PermanentError reaches the worker",
                 ok=isinstance(refused, PermanentError), got=shared.said(refused), expected="raised EmailRejected "
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


def _kills_on_cue(t: Trial, box, send_confirmation, provider: EmailProvider, env: dict[str, str]) -> None:
    """The idempotent-send rule, as 06.send_confirmation asks it too (checks/shared.py): a worker killed at
    each critical point, then the job run again. Then lab 12's own: a booking that does not exist."""
    def keys(booking_id: int) -> list:
        address = stayhub.booking(box.conn, booking_id).guest_email
        return [r.idempotency_key for r in provider.requests() if r.to == address]

    send = shared.Send(handler=send_confirmation, provider=provider, env=env, marks="confirmations",
                      key="stayhub.confirmation_key(booking_id), confirm:<booking id>",
                      emails=lambda b: stayhub.emails_by_booking(provider.deliveries())[b], keys=keys,
                      latency_s=stayhub.EMAIL_S)
    shared.expect_one_email_through_kills(t, box, send, tuple(_bookings(box.conn, [2, 3, 1])))

    # A booking that does not exist: nothing to send, ever.
    with processes.environment(env):
        missing = shared.outcome(send_confirmation, _job(MISSING_BOOKING), box.conn)
    t.expect("a job for a booking that does not exist raises a PermanentError (nothing to send, ever)",
             ok=isinstance(missing, PermanentError), got=shared.said(missing), expected="raised PermanentError",
             example=f"booking {MISSING_BOOKING}: stayhub.booking(conn, {MISSING_BOOKING}) is None",
             note="a job that can never succeed must not use up 8 attempts: raise PermanentError and the worker "
                  "dead-letters it at once")


# -- 12.retry_policy --------------------------------------------------------------------------------------


@exercise_check("12.retry_policy")
def retry_policy(t: Trial, MAX_ATTEMPTS, retry_delay):
    attempts = t.answer("MAX_ATTEMPTS", MAX_ATTEMPTS)
    t.expect("8 attempts, then the dead-letter table (a cap: not retries forever)", got=attempts, expected=8,
             example="MAX_ATTEMPTS", note="a job that can never succeed must stop somewhere: StayHub's policy is 8")
    random.seed(12)  # the learner's jitter, if it uses the random module, becomes repeatable
    # The backoff-and-jitter rule is 07.backoff's, judged by the same checker (checks/shared.py).
    shared.expect_backoff_with_full_jitter(
        t, lambda n: t.call_many(retry_delay, [((n,), {})] * shared.DRAWS, during=f"retry_delay({n}), {shared.DRAWS:,} times"),
        "retry_delay({n})", at_cap=shared.AT_CAP + (100, 1000))
    # The material's red flags, by name.
    means = {n: statistics.fmean(t.call_many(retry_delay, [((n,), {})] * 300, during=f"retry_delay({n}), 300 times"))
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
    missing = shared.outcome(render_invoice, _job(MISSING_BOOKING), box.conn)
    t.expect("a job for a booking that does not exist ends at once: nothing to do (no error the queue would retry)",
             ok=missing is None or isinstance(missing, PermanentError), got=shared.said(missing),
             expected="returned (or raised PermanentError)",
             example=f"booking {MISSING_BOOKING}: stayhub.booking(conn, {MISSING_BOOKING}) is None",
             note="(A): no booking is nothing to do; any other error is retried 8 times, then dead-lettered")
    env = {stayhub.INVOICE_S_ENV: "0.3"}
    # 0. Two workers at once and a kill at each critical point, placed on purpose; then (1., 2.) seeded
    #    random rounds.
    _two_runs_at_once(t, box, render_invoice, env)
    _invoice_kills_on_cue(t, box, render_invoice, env)
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


def _two_runs_at_once(t: Trial, box, render_invoice, env: dict[str, str]) -> None:
    """Two workers at once, placed on cue: a first run held at its COMMIT with every lock it took still
    held (faults/killpoint.py), while a second worker runs — for the same booking, then for another one;
    during that second hold another session asks for the held row FOR KEY SHARE, as a foreign-key check does."""
    same, held_other, other = _bookings(box.conn, [1, 2, 3])

    def second_run(booking_id: int) -> dict:
        """Start the second worker's run on a session of its own; return once it finished or waits for a
        lock. The dict gets "thread", "waited" (it waited for a lock) and, once done, "outcome"."""
        run: dict = {"waited": False}
        started = threading.Event()

        def work():
            with box.connect() as conn:
                run["pid"] = conn.info.backend_pid
                started.set()
                run["outcome"] = shared.outcome(render_invoice, _job(booking_id), conn)

        run["thread"] = threading.Thread(target=work, daemon=True, name="check-12-second-worker")
        run["thread"].start()
        started.wait(10)

        def done_or_waiting() -> bool:
            run["waited"] = run["waited"] or bool(box.conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND wait_event_type = 'Lock'",
                [run.get("pid")]).fetchone()[0])
            return run["waited"] or not run["thread"].is_alive()

        with contextlib.suppress(TimeoutError):
            wait_until(done_or_waiting, 20.0, interval=0.02, what="the second run to finish or wait")
        return run

    with processes.environment(env):
        runs: dict[int, dict] = {}
        what = killpoint.run_and_hold(box, render_invoice, _job(same), table="invoices", env=env,
                                      meanwhile=lambda: runs.setdefault(same, second_run(same)))
        for run in runs.values():
            run["thread"].join(30)
        counts = stayhub.invoices_by_booking(box.conn)
        second = runs.get(same, {})
        t.expect("a second run while the first waits at its commit, its lock held: still one invoice",
                 got=counts[same], expected=1,
                 example=f"booking {same}: run 1 {what}; run 2 started meanwhile "
                         f"({'waited for a lock, then ' if second.get('waited') else ''}{shared.said(second.get('outcome'))})",
                 note="(B): run 2 checked before run 1 committed, so both stored one: take the booking's row lock "
                      "(SELECT ... FOR NO KEY UPDATE) in the transaction, then check" if counts[same] > 1 else None)

        runs, key_share = {}, {}

        def meanwhile() -> None:
            key_share["refused"] = _key_share_refused(box, held_other)
            runs.setdefault(other, second_run(other))

        what = killpoint.run_and_hold(box, render_invoice, _job(held_other), table="invoices", env=env,
                                      meanwhile=meanwhile)
        for run in runs.values():
            run["thread"].join(30)
        refused = key_share.get("refused", f"never tried: run 1 {what}")
        t.expect("while a run holds its booking's row, rows that reference the booking can still be inserted: "
                 "FOR NO KEY UPDATE, not FOR UPDATE", ok=not refused,
                 got=refused or "FOR KEY SHARE granted at once", expected="FOR KEY SHARE granted at once",
                 example=f"booking {held_other}: run 1 {what}; meanwhile another session runs SELECT 1 FROM bookings "
                         f"WHERE id = {held_other} FOR KEY SHARE NOWAIT (the lock every insert that references the "
                         "booking takes for its foreign-key check)",
                 note="FOR UPDATE also blocks the foreign-key check of every row that references the booking: the "
                      "confirmation email would wait the 1.5 s the invoice takes. Lock with FOR NO KEY UPDATE, "
                      "which blocks only another run of this job" if key_share.get("refused") else None)
        counts = stayhub.invoices_by_booking(box.conn)
        second = runs.get(other, {})
        t.expect("a run for another booking does not wait for this one: each run locks its own booking's row",
                 ok=not second.get("waited") and counts[other] == 1,
                 got=f"run 2 {'waited for a lock' if second.get('waited') else 'did not wait'}, "
                     f"{counts[other]} invoice(s) for booking {other}",
                 expected=f"did not wait, 1 invoice for booking {other}",
                 example=f"booking {held_other}: run 1 {what}; meanwhile run 2 for booking {other}",
                 note="lock the row of job.payload['booking_id'], not a fixed row or the whole table: invoices of "
                      "different bookings must not queue behind each other" if second.get("waited") else None)


def _key_share_refused(box, booking_id: int) -> str | None:
    """Whether another session is refused the booking's row in FOR KEY SHARE mode right now, without
    waiting (NOWAIT): None when it gets the lock, else what PostgreSQL said."""
    with box.connect() as conn:
        try:
            conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR KEY SHARE NOWAIT", [booking_id])
        except psycopg.errors.LockNotAvailable as error:
            return f"refused: {str(error).strip()}"
    return None


def _invoice_kills_on_cue(t: Trial, box, render_invoice, env: dict[str, str]) -> None:
    """A worker SIGKILLed at each critical point of the invoice job, each followed by a re-run (the next
    attempt): after the invoice is stored and before the commit, in the middle of rendering, after the commit
    and before the ack. Placed on cue (faults/killpoint.py), not at random, so no seed can miss one."""
    before_commit, mid_render, before_ack = _bookings(box.conn, [3, 1, 2])

    def judge(name: str, booking_id: int, example: str) -> None:
        got = stayhub.invoices_by_booking(box.conn)[booking_id]
        t.expect(name, got=got, expected=1, example=example,
                 note="(A): an invoice that exists already means there is nothing left to do" if got > 1 else
                 "the re-run must render the invoice when the first run's work was lost" if got == 0 else None)

    def again(booking_id: int) -> BaseException | None:
        with processes.environment(env):
            return shared.outcome(render_invoice, _job(booking_id, attempts=2), box.conn)

    # After the invoice is stored, before the commit: a deferred trigger holds the commit until the kill.
    killpoint.hold_commit(box.conn, "invoices")
    try:
        what = killpoint.run_and_kill(box, render_invoice, _job(before_commit), when=killpoint.waiting_at_commit(box),
                                      env=env)
    finally:
        killpoint.release_commit(box.conn, "invoices")
    second = again(before_commit)
    judge("a worker killed after storing the invoice, before the commit, then the job runs again: one invoice",
          before_commit, f"booking {before_commit}: attempt 1 SIGKILLed while its transaction commits ({what}), "
                         f"then attempt 2 ({shared.said(second)})")

    # In the middle of rendering: the child marks the start of render_invoice_pdf, and is killed there.
    with tempfile.TemporaryDirectory(prefix="course-invoice-") as folder:
        marker = Path(folder) / "rendering"
        handler = killpoint.marked_at(render_invoice, stayhub.__name__, "render_invoice_pdf", marker)
        what = killpoint.run_and_kill(box, handler, _job(mid_render), when=killpoint.in_the_effect(marker), env=env)
    second = again(mid_render)
    judge("a worker killed while rendering the invoice, then the job runs again: one invoice", mid_render,
          f"booking {mid_render}: attempt 1 SIGKILLed in the middle of render_invoice_pdf ({what}), "
          f"then attempt 2 ({shared.said(second)})")

    # After the commit, before the ack: the whole first run happened, and the job comes back.
    with processes.environment(env):
        first = shared.outcome(render_invoice, _job(before_ack), box.conn)
    second = again(before_ack)
    example = (f"booking {before_ack}: attempt 1 ran to the end ({shared.said(first)}) but was never acked, "
               f"then attempt 2 ({shared.said(second)})")
    judge("a worker killed after the commit, before the ack, then the job runs again: one invoice", before_ack,
          example)
    t.expect("that re-run returns normally: nothing is left to do, so the job is acked", ok=first is None and
             second is None, got=f"attempt 1 {shared.said(first)}, attempt 2 {shared.said(second)}",
             expected="both returned", example=example,
             note="(A): an invoice that exists already is nothing to do: return, do not raise"
             if second is not None else None)


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
