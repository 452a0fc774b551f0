"""Lab 13: the course's ideas on a replicated NATS JetStream cluster.

The two code exercises run against a real three-node cluster that the check starts (and always stops),
each beside the reference on the same seeded scenarios, judged from what JetStream and the check's own
publish function saw (never by patching the learner's module):
  13.keep_alive      lab13/keep_alive.py: the handler behind the course's consumer loop, invoices shorter
                     than, as long as and longer than the AckWait; then in two consumer processes,
                     where the handler's render_page is grading/faults/page_renderer.py's, which logs each page.
  13.publish_retry   lab13/publish_retry.py: runs of every TRANSIENT error, dead and flaky publishes;
                     acks lost on the way back, then the stream's leader SIGKILLed mid-run.
  13.choose          lab13/choose.py: the decision function, on cases.
"""

from __future__ import annotations

from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask

from course.grading.checks.lab13.cluster import cluster_for_check  # noqa: E402 (re-exported: tests use it)


# -- 13.keep_alive: lab13/keep_alive.py -----------------------------------------------------------

from course.grading.checks.lab13 import keep_alive as _keep_alive  # noqa: E402,F401 (registers it)
from course.grading.checks.lab13.keep_alive import ACK_WAIT_S, PAGE_S  # noqa: E402,F401 (the tests use them)


# -- 13.publish_retry: lab13/publish_retry.py -------------------------------------------------------

from course.grading.checks.lab13 import publish_retry as _publish_retry  # noqa: E402,F401 (registers it)


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
