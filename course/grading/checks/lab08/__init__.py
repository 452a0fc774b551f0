"""Lab 08: the missed-run policy and the scheduler's tick, judged differentially (issue 22), and the quiz.

    plan.py        08.plan: the learner's plan and the reference's on every list of due slots and policy
    world.py       08.tick's scenarios: schedule tables in the learner's words, and a tick's result slot by slot
    tick.py        08.tick: beside the reference on generated tables, beside another scheduler, killed
    schedulers.py  08.tick's last stage: three real scheduler processes on one simulated clock
"""

from __future__ import annotations

from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.quiz import Question, multiple_choice
from course.grading.checks.lab08 import plan as _plan
from course.grading.checks.lab08 import tick as _tick


@exercise_check("08.plan")
def plan_check(t: Trial, plan, seed=None):
    _plan.plan_check(t, plan, seed)


@exercise_check("08.tick")
def tick_check(t: Trial, tick, seed=None):
    _tick.tick_check(t, tick, seed)


predict_cron_check = multiple_choice(
    "08.predict_cron",
    predict_cron=Question(
        "b", "how often the 02:00 invoices run, and what becomes of 02:10 to 02:20, with cron on three servers",
        "look at what the run measured: how many runs per slot, and which slots have none?"),
)


predict_missed_check = multiple_choice(
    "08.predict_missed",
    predict_missed=Question(
        "c", "what the first tick after the outage enqueues and records",
        "look at what the run measured: how many slots of each task were enqueued, and how many skipped?"),
)


quiz = multiple_choice(
    "08.quiz",
    q1=Question("b", "what makes three schedulers enqueue a slot once",
                "two schedulers can both see \"not there yet\" before either inserts"),
    q2=Question("c", "what the 02:40 restart does with the missed slots",
                "count the five-minute slots from 01:35 to 02:40, and which policy each task has"),
    q3=Question("a", "why the nightly job must be idempotent anyway",
                "the scheduler enqueues once; does a job run only once?"),
    q4=Question("b", "a slot's claim that waited for another scheduler's, under REPEATABLE READ",
                "look at section 2's two schedules: what did B's INSERT do at each level once A committed?"),
    q5=Question("b", "a scheduler killed between committing the slot's row and enqueueing its job",
                "the row says the slot is decided: will any later tick enqueue it again?"),
)
