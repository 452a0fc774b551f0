"""Lab 08: the missed-run policy and the scheduler's tick, judged differentially (issue 22), and the quiz.

    plan.py        08.plan: the learner's plan and the reference's on every list of due slots and policy
    world.py       08.tick's scenarios: schedule tables in the learner's words, and a tick's result slot by slot
    tick.py        08.tick: beside the reference on generated tables, beside another scheduler, killed
    schedulers.py  08.tick's last stage: three real scheduler processes on one simulated clock
"""

from __future__ import annotations

from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask
from course.grading.checks.lab08 import plan as _plan
from course.grading.checks.lab08 import tick as _tick


@exercise_check("08.plan")
def plan_check(t: Trial, plan, seed=None):
    _plan.plan_check(t, plan, seed)


@exercise_check("08.tick")
def tick_check(t: Trial, tick, seed=None):
    _tick.tick_check(t, tick, seed)


@exercise_check("08.predict_cron")
def predict_cron_check(t: Trial, predict_cron):
    ask(t, "predict_cron", predict_cron, "b",
        "how often the 02:00 invoices run, and what becomes of 02:10 to 02:20, with cron on three servers",
        "look at what the run measured: how many runs per slot, and which slots have none?")


@exercise_check("08.predict_missed")
def predict_missed_check(t: Trial, predict_missed):
    ask(t, "predict_missed", predict_missed, "c",
        "what the first tick after the outage enqueues and records",
        "look at what the run measured: how many slots of each task were enqueued, and how many skipped?")


@exercise_check("08.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5):
    ask(t, "q1", q1, "b", "what makes three schedulers enqueue a slot once",
        "two schedulers can both see \"not there yet\" before either inserts")
    ask(t, "q2", q2, "c", "what the 02:40 restart does with the missed slots",
        "count the five-minute slots from 01:35 to 02:40, and which policy each task has")
    ask(t, "q3", q3, "a", "why the nightly job must be idempotent anyway",
        "the scheduler enqueues once; does a job run only once?")
    ask(t, "q4", q4, "b", "a slot's claim that waited for another scheduler's, under REPEATABLE READ",
        "look at section 2's two schedules: what did B's INSERT do at each level once A committed?")
    ask(t, "q5", q5, "b", "a scheduler killed between committing the slot's row and enqueueing its job",
        "the row says the slot is decided: will any later tick enqueue it again?")
