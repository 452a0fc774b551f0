"""Lab 05: the dual write and the outbox — the relay's core step, a cancellation announced through the outbox, the quiz.

Each code exercise is judged differentially (issue 22): the learner's answer and the reference run on the
same tables, drawn from everything the statement allows, then with another session acting between the
answer's statements, and killed between its steps. One module per exercise: relay.py, cancel_order.py (its
scenarios in cancel_world.py).
"""

from __future__ import annotations

from course.grading.checks import exercise_check
from course.grading.checks.lab05 import cancel_order, relay  # noqa: F401 (they register their checks)
from course.grading.checks.quiz import ask
from course.grading.trial import Trial


@exercise_check("05.predict_save_then_enqueue")
def predict_save_then_enqueue_check(t: Trial, predict_save_then_enqueue):
    ask(t, "predict_save_then_enqueue", predict_save_then_enqueue, "b",
        "what four orders leave behind when the checkout dies between the two writes of the fourth",
        "look at what the run measured: which of the fourth order's two writes had committed?")


@exercise_check("05.predict_relay_crash")
def predict_relay_crash_check(t: Trial, predict_relay_crash):
    ask(t, "predict_relay_crash", predict_relay_crash, "b",
        "how many messages the stream holds after a relay dies between publishing and marking",
        "look at what the run measured: which rows had been published, and which marked sent, when it died?")


@exercise_check("05.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5):
    ask(t, "q1", q1, "b", "what a crash between the two writes leaves behind",
        "the first write had committed; what happened to the second?")
    ask(t, "q2", q2, "b", "why the relay publishes some rows twice", "what happens between publish and mark sent?")
    ask(t, "q3", q3, {"b", "c"}, "why consumers stay idempotent with Nats-Msg-Id",
        "how long does JetStream remember an id, and what does it de-duplicate: the way in or the way out?")
    ask(t, "q4", q4, "c", "why the event's uuid is the message id, not the row id",
        "what happens to the ids when the outbox table is created again?")
    ask(t, "q5", q5, "b", "what a second relay publishes while the first holds its rows before marking them",
        "which rows does FOR UPDATE SKIP LOCKED pass over, and when do the first relay's locks end?")
