"""Lab 12: the StayHub capstone — the material's "check before you accept" list and its red flags.

    12.checkout            checkout is fast and the email still arrives (real HTTP, real workers); the
                           booking and its jobs are stored together or not at all (red flag: jobs
                           enqueued after the commit)
    12.safe_checkout       the checkout's charge safe against a crash between the charge and the commit:
                           a pending row first, the charge under the booking's key, a reconcile; judged with
                           the session ended at every statement boundary, and reconcile between statements
    12.booking_worker      StayHub's worker step from labs 03, 04 and 07: claim with a lease, the handler with no
                           transaction open, a fenced ack, or a retry (backoff, Retry-After) or the dead-letter
                           table; judged over seeded stories and killed at every statement boundary
    12.invoice_worker      the practice ladder's invoice worker: one invoice per booking, none when cancelled

    stays.py               what the checks share: StayHub's tables, bookings, a job, the stub probe
    checkout.py, safe_checkout.py, booking_worker.py, invoice_worker.py: one exercise each
    booking_stories.py     12.booking_worker's stories, its provider with a log of its own, and the reference
"""

from __future__ import annotations

from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask
from course.grading.checks.lab12 import booking_worker, checkout, invoice_worker, safe_checkout  # noqa: F401 (they register)


# -- 12.quiz --------------------------------------------------------------------------------------------------


@exercise_check("12.predict_monday")
def predict_monday_check(t: Trial, predict_monday):
    ask(t, "predict_monday", predict_monday, "b",
        "how long a guest waits for 'Confirmed' inline, and what a paid guest sees when the partner is silent",
        "look at what the run measured: each booking's answer, and what booking 982's guest saw")


@exercise_check("12.predict_wednesday")
def predict_wednesday_check(t: Trial, predict_wednesday):
    ask(t, "predict_wednesday", predict_wednesday, "a",
        "how long a guest waits with the side work in jobs, and when the email lands",
        "look at what the run measured: the answers' times, and when each email landed after its 'Confirmed'")


@exercise_check("12.predict_saturday")
def predict_saturday_check(t: Trial, predict_saturday):
    ask(t, "predict_saturday", predict_saturday, "b",
        "whether the email job rides out the 11:55-12:03 outage, what the guest sees and when the email arrives",
        "look at what the run measured: the attempts before the dead-letter table, and what the guest saw")


@exercise_check("12.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5, q6):
    ask(t, "q1", q1, {"c", "d", "e"}, "which steps of POST /bookings become jobs",
        "which results does the guest need before the page can say 'Confirmed'?")
    ask(t, "q2", q2, "b", "Maya's 'charge later' idea", "what happens when a card is declined after the guest left?")
    ask(t, "q3", q3, "a", "the order of events when the provider answers 503 every time",
        "the worker has to call before anything can fail, and a person redrives only after the alert")
    ask(t, "q4", q4, "b", "a worker killed after the provider accepted the email",
        "what does the provider do with a second request carrying the same Idempotency-Key?")
    ask(t, "q5", q5, "b", "a checkout killed between the charge and the booking's transaction",
        "the charge happened at another company: which of the two writes can PostgreSQL roll back?")
    ask(t, "q6", q6, "b", "what makes a crash between the charge and the booking harmless",
        "read 'The charge is a dual write' after exercise 12.checkout: which fix leaves a record before the charge?")
