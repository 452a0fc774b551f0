"""StayHub's acceptance test for 06.send_confirmation (Lina's): ten bookings, two of them enqueued twice, run by
two worker processes that are SIGKILLed after sending and before the ack, with emails counted where the
guest would count them: at the email provider, a real HTTP service in a process of its own. On a failure it
tells the doubled booking's story (the run's timeline beside what the provider answered) and the seed that
replays the run.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import psycopg

from course.programs.email_provider import EmailProvider

from course.grading import faults
from course.grading.checks.lab06.stayhub import PROVIDER_URL_ENV, WORKERS_TIMEOUT_S
from course.grading.trial import Trial

KILLS = faults.Faults(kill_after_work=0.3, kill_mid_work=0.1, max_kills=4)
EVERY_GUEST = "every guest got a confirmation"
NO_GUEST_TWICE = "no guest got two emails, even when their job ran more than once"


class Inbox:
    """The emails the provider delivered, counted per booking (by the guest's address)."""

    def __init__(self, conn: psycopg.Connection, provider: EmailProvider):
        self.booking_of = dict(conn.execute("SELECT email, id FROM bookings").fetchall())
        self.provider = provider

    def per_booking(self) -> Counter:
        return Counter(self.booking_of.get(d.to) for d in self.provider.deliveries())

    def of(self, booking_id: int) -> int:
        return self.per_booking()[booking_id]

    def keys(self, booking_id: int) -> list:
        """The Idempotency-Keys the provider was sent for this booking, in order."""
        return [r.idempotency_key for r in self.provider.requests() if self.booking_of.get(r.to) == booking_id]


def the_acceptance_test(t: Trial, box, send_confirmation, inbox: Inbox, provider: EmailProvider,
                        bookings: list[int], seed) -> None:
    box.conn.execute("DELETE FROM jobs")
    twice = bookings[:2]  # enqueued twice, as a double click or a redrive would
    payloads = [{"booking_id": b} for b in bookings + twice]
    scenario = faults.Scenario(send_confirmation, payloads, workers=2, concurrency=2, lease_s=1.0, faults=KILLS,
                               env={PROVIDER_URL_ENV: provider.url}, timeout_s=WORKERS_TIMEOUT_S)
    result = faults.run(box, scenario, seed=seed)
    t.seed = result.seed
    faults.expect_finished(t, result)
    emails = inbox.per_booking()
    booking_of_job = {job_id: payload["booking_id"] for job_id, payload in zip(result.job_ids, payloads)}

    def provider_saw(job_id: int) -> list[faults.Event]:
        """What the provider answered for this job's booking, and the booking's other job, if it has one."""
        booking = booking_of_job[job_id]
        address = next(a for a, b in inbox.booking_of.items() if b == booking)
        requests = [faults.Event(t=round(r.at - result.started_at, 3), pid=0, kind="provider", worker=-1,
                                 detail=f"{r.outcome} (HTTP {r.status}, Idempotency-Key {r.idempotency_key!r})")
                    for r in provider.requests() if r.to == address]
        siblings = [dataclasses.replace(e, kind=f"{e.kind} (job {e.job}, the same booking)")
                    for other, b in booking_of_job.items() if b == booking and other != job_id
                    for e in result.of(other)]
        # A worker runs two jobs at a time: its SIGKILL may be written down under the other one.
        pids = {e.pid for e in result.of(job_id)}
        kills = [dataclasses.replace(e, kind=f"{e.kind} (while also running job {e.job})")
                 for e in result.events if e.kind == "killed" and e.pid in pids and e.job != job_id]
        return requests + siblings + kills

    without = [b for b in bookings if emails[b] == 0]
    job_of: dict[int, int] = {}
    for job_id, booking in booking_of_job.items():
        job_of.setdefault(booking, job_id)  # a booking enqueued twice: its first job
    t.expect(f"the StayHub acceptance test ({len(payloads)} jobs, workers SIGKILLed after sending, before the ack): "
             f"{EVERY_GUEST}", got=f"booking {without[0]} got none" if without else "all got one",
             expected="all got one", ok=not without,
             note=result.timeline(job_of[without[0]], provider_saw(job_of[without[0]])) if without else None)
    # The simplest story first: a booking with a single job that still got two emails.
    doubled = sorted((b for b in bookings if emails[b] > 1), key=lambda b: (b in twice, b))
    note = None
    if doubled:
        job = job_of[doubled[0]]
        started = Counter(e.job for e in result.events if e.kind == "started")
        note = (f"{sum(n > 1 for n in started.values())} job(s) were started more than once in this run "
                "(at-least-once delivery): a second run must not send a second email.\n"
                + result.timeline(job, provider_saw(job)))
    t.expect(NO_GUEST_TWICE, ok=not doubled,
             got=f"booking {doubled[0]} got {emails[doubled[0]]}" if doubled else "one each",
             expected="one email per booking", note=note)
