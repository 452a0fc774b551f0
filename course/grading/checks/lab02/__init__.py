"""Lab 02: a queue, and what goes in a job.

    02.place_order    the producer: the order and its send_receipt job, ids only, in one transaction
                      (its check: place_order.py)
    02.send_receipt   the handler: read the order and the customer now, send, and let a failure raise; run
                      in this process over generated runs, then in real worker processes against a provider
                      that refuses a third of the sends (its check: send_receipt.py)
    02.quiz           check yourself
"""

from __future__ import annotations

from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.lab02 import place_order as _place_order
from course.grading.checks.lab02 import send_receipt as _send_receipt
from course.grading.checks.quiz import Question, multiple_choice


@exercise_check("02.place_order")
def place_order_check(t: Trial, place_order_and_enqueue, seed=None):
    _place_order.place_order_check(t, place_order_and_enqueue, seed)


@exercise_check("02.send_receipt")
def send_receipt_check(t: Trial, send_receipt, seed=None):
    _send_receipt.send_receipt_check(t, send_receipt, seed)


# -- 02.quiz --------------------------------------------------------------------------------------


predict_worker_after_crash_check = multiple_choice(
    "02.predict_worker_after_crash",
    predict_worker_after_crash=Question(
        "b", "what a worker started after the checkout's SIGKILL sends",
        "look at what the run measured: the jobs were rows in PostgreSQL, not threads of the dead process"),
)


predict_which_address_check = multiple_choice(
    "02.predict_which_address",
    predict_which_address=Question(
        "c", "which address each job design's receipt shows after Ana moves",
        "look at what the run measured: which of the two jobs was read again when it ran?"),
)


quiz_check = multiple_choice(
    "02.quiz",
    q1=Question("b", "which producer can leave a paid order with no receipt job",
                "what does a customer get if the order commits and the next step never runs?"),
    q2=Question("a", "which job gives the rider the right address",
                "which address did each receipt show in section 5?"),
    q3=Question("b", "what a checkout crash does to stored jobs",
                "count the jobs before and after the SIGKILL in section 2"),
    q4=Question("a", "what the queue does with a payload that carries a PDF",
                "look at the three designs in section 5: what did the course's queue say to the one with the PDF?"),
    q5=Question("b", "a handler that swallows the provider's error",
                "the worker decides done or failed from one thing: did the handler raise?"),
)
