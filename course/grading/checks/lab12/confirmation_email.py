"""12.confirmation_email (a worker killed after sending: one email; a provider down for good: the dead-letter
table after 8 attempts, with an alert; an impossible address: dead at once) and 12.retry_policy."""

from __future__ import annotations

import random
import statistics

import psycopg
from psycopg import sql as pgsql

from course.core import monitoring
from course.infra import processes
from course.core.queue import PermanentError
from course.programs import stayhub
from course.programs.email_provider import EmailProvider

from course.grading import faults
from course.grading.trial import Trial
from course.grading.checks import exercise_check, shared
from course.grading.checks.lab12.stays import stayhub_box, store_bookings, booking_job, expect_started, MISSING_BOOKING, RUN_S


# -- 12.confirmation_email --------------------------------------------------------------------------------


def _effects_by_job(result: faults.Run, booking_of: dict[int, int], counts) -> dict[int, int]:
    return {job_id: counts[booking_of[job_id]] for job_id in result.job_ids}


@exercise_check("12.confirmation_email")
def confirmation_email(t: Trial, send_confirmation, seed=None):
    box = stayhub_box(t)
    expect_started(t, send_confirmation, box)
    provider = EmailProvider.start(latency_s=stayhub.EMAIL_S, name="check-provider")  # 300 ms, as StayHub's
    try:
        env = {stayhub.PROVIDER_URL_ENV: provider.url}
        # 0. A kill placed on purpose at each critical point, then (1.) seeded random rounds.
        _kills_on_cue(t, box, send_confirmation, provider, env)
        provider.reset()
        box.conn.execute("DELETE FROM confirmations")
        # 1. Workers killed after sending (and now and then while sending); one booking has two jobs (a
        #    person re-enqueued it by hand): every guest gets exactly one email.
        ids = store_bookings(box.conn, [1, 2, 3, 1])
        payloads = [{"booking_id": ids[0]}] + [{"booking_id": b} for b in ids]
        scenario = faults.Scenario(send_confirmation, payloads, workers=2, concurrency=2, lease_s=1.0,
                                   faults=faults.Faults(kill_after_work=0.3, kill_mid_work=0.5, max_kills=3),
                                   env=env, timeout_s=RUN_S)
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
        [flaky] = store_bookings(box.conn, [3])
        with processes.environment(env):
            first = shared.outcome(send_confirmation, booking_job(flaky, attempts=1), box.conn)
            provider.healthy()
            second = shared.outcome(send_confirmation, booking_job(flaky, attempts=2), box.conn)
        got = stayhub.emails_by_booking(provider.deliveries())[flaky]
        t.expect("a 503 on the first attempt, then the provider works: the email still goes out, once", got=got,
                 expected=1, example=f"booking {flaky}: attempt 1 while the provider answered 503 ({shared.said(first)}), "
                                     f"attempt 2 once it was back ({shared.said(second)})",
                 note="a row committed before the email is sent says 'sent' even when the send failed: insert it and "
                      "send in one transaction, so a failed send rolls the row back")

        # 3. An address that cannot exist: the provider answers 422, and retrying cannot help.
        [impossible] = store_bookings(box.conn, [4])  # guest 4: nobody@stayhub.invalid
        with processes.environment(env):
            refused = shared.outcome(send_confirmation, booking_job(impossible), box.conn)
        t.expect("an impossible address ends the job at once: a PermanentError reaches the worker",
                 ok=isinstance(refused, PermanentError), got=shared.said(refused), expected="raised EmailRejected "
                 "(a PermanentError)", example="guest 4, nobody@stayhub.invalid: the provider answers 422",
                 note="let EmailRejected through: the worker dead-letters a PermanentError at once instead of "
                      "retrying it 8 times; catching it hides the problem from everyone")

        # 4. The provider is down for good: 8 attempts each, then the dead-letter table and an alert.
        provider.reset()
        provider.configure(down=True)
        failing = store_bookings(box.conn, [1, 2])
        listener = psycopg.connect(box.conninfo, autocommit=True)
        try:
            listener.execute(pgsql.SQL("LISTEN {}").format(pgsql.Identifier(f"dead_jobs:{box.schema}")))
            scenario = faults.Scenario(send_confirmation, [{"booking_id": b} for b in failing], workers=2,
                                       concurrency=2, lease_s=1.0, max_attempts=stayhub.MAX_ATTEMPTS,
                                       retry_delay_s=0.02, env=env, timeout_s=RUN_S)
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
    shared.expect_one_email_through_kills(t, box, send, tuple(store_bookings(box.conn, [2, 3, 1])))

    # A booking that does not exist: nothing to send, ever.
    with processes.environment(env):
        missing = shared.outcome(send_confirmation, booking_job(MISSING_BOOKING), box.conn)
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
