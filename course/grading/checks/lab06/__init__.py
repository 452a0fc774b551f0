"""Lab 06: idempotency — a conditional UPDATE, the StayHub acceptance test, the quiz.

Each code exercise is judged differentially (issue 22): the learner's handler and the reference run on the
same StayHub tables, drawn from everything the statement allows, then beside another worker, killed between
its steps, and last in real worker processes SIGKILLed after the work. One module per exercise: confirm.py,
send.py; stayhub.py is the world both build.
"""

from __future__ import annotations

from course.grading.checks import exercise_check
from course.grading.checks.lab06 import confirm, send  # noqa: F401 (they register their checks)
from course.grading.checks.quiz import ask
from course.grading.trial import Trial


@exercise_check("06.predict_duplicates")
def predict_duplicates_check(t: Trial, predict_duplicates):
    ask(t, "predict_duplicates", predict_duplicates, "b",
        "how many guests get two emails when workers are killed after the send, before the ack",
        "look at what the run measured, and at the history plot: what follows each cross?")


@exercise_check("06.predict_rooms")
def predict_rooms_check(t: Trial, predict_rooms):
    ask(t, "predict_rooms", predict_rooms, "b",
        "what rooms_left becomes when 10 bookings are confirmed by workers killed after the work",
        "look at what the run measured: how many rooms went for 10 bookings, and why more than one for some?")


@exercise_check("06.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5, q6):
    ask(t, "q1", q1, "a", "what a processed-keys table in the same transaction can make happen once",
        "which of these effects can a rollback of our transaction take back?")
    ask(t, "q2", q2, "b", "a key made of the job id and the attempt",
        "what key does the provider see on the second attempt?")
    ask(t, "q3", q3, "b", "an UPDATE ... WHERE status = 'pending' that changes no row",
        "why would the booking no longer be pending?")
    ask(t, "q4", q4, "c", "what makes the confirmation email exactly-once to the guest",
        "which of these survives a crash after the provider accepted the email?")
    ask(t, "q5", q5, "b", "the interleaving of check-then-insert that awards double points",
        "look at the schedule of section 2 that gave two ledger rows: when did each session check?")
    ask(t, "q6", q6, "a", "a conditional UPDATE that waited for another's row lock, in READ COMMITTED",
        "look at section 3's two schedules: what did B's UPDATE return once A committed?")
