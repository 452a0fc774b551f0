"""Lab 04's predictions and quiz: check yourself."""

from __future__ import annotations

from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask
from course.grading.trial import Trial


@exercise_check("04.predict_delete_on_read")
def predict_delete_on_read_check(t: Trial, predict_delete_on_read):
    ask(t, "predict_delete_on_read", predict_delete_on_read, "b",
        "what is left of Ana's job and receipt after the delete-on-read worker's SIGKILL",
        "look at what the run measured: what was in the jobs table after the kill?")


@exercise_check("04.predict_lease_runs_out")
def predict_lease_runs_out_check(t: Trial, predict_lease_runs_out):
    ask(t, "predict_lease_runs_out", predict_lease_runs_out, "b",
        "when Ben's receipt goes out after worker 1's SIGKILL, and who sends it",
        "look at what the run measured: when did worker 2 claim the job, and with which attempt?")


@exercise_check("04.predict_killed_after_sending")
def predict_killed_after_sending_check(t: Trial, predict_killed_after_sending):
    ask(t, "predict_killed_after_sending", predict_killed_after_sending, "c",
        "how many receipts Chen gets when his worker dies after sending, before its ack",
        "look at what the run measured: how many times did the job run, and what did each run send?")


@exercise_check("04.predict_sync_past_lease")
def predict_sync_past_lease_check(t: Trial, predict_sync_past_lease):
    ask(t, "predict_sync_past_lease", predict_sync_past_lease, "b",
        "how many times the channel manager hears about booking 981 with no heartbeat",
        "look at what the run measured: when did the lease end, and what did the second worker do then?")


@exercise_check("04.predict_unfenced_ack")
def predict_unfenced_ack_check(t: Trial, predict_unfenced_ack):
    ask(t, "predict_unfenced_ack", predict_unfenced_ack, "a",
        "what is left of Dana's receipt after A's late, unfenced ack and B's retry",
        "look at what the run measured: how many jobs were left after A's DELETE and B's fail()?")


@exercise_check("04.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5, q6, q7):
    ask(t, "q1", q1, "b", "the worker that deleted its job on read, then died", "what was left in the jobs table "
        "after the SIGKILL?")
    ask(t, "q2", q2, "c", "a worker killed after the email went out, before its ack", "the job was never acked: "
        "what does the lease do then?")
    ask(t, "q3", q3, "b", "a 45-second job under a 30-second visibility timeout, no heartbeat", "look again at "
        "the two bars of the channel-manager sync")
    ask(t, "q4", q4, "a", "what the ack must compare", "after another worker claims the job, whose lease ends "
        "in the future?")
    ask(t, "q5", q5, "b", "a worker with a heartbeat, frozen past its lease", "look at section 6's time line: "
        "what did each worker do, and what did the lease token refuse?")
    ask(t, "q6", q6, "c", "how often to beat", "what if one beat is late, or the database is slow for a moment?")
    ask(t, "q7", q7, "b", "a hung handler whose heartbeat keeps beating", "look at the lease section 6 watched: "
        "did its end stay put, and did attempts grow?")
