"""Lab 09: one queue or two. Routing by business impact, and a newsletter that lets confirmations by, both
judged differentially (issue 22): the learner's function and the reference's (the solution's
queue.enqueue and queue.enqueue_many calls) on the same jobs table, drawn from everything the statement
allows, then with another session acting between the answer's statements.

09.route draws job types StayHub has, types added to IMPACT for the scenario (late after 0 s, 119.5 s,
exactly 120 s, 120.5 s, a week ...), existing types reclassified, and types nobody classified; payloads
of every shape; other jobs already waiting. 09.newsletter draws guest lists (none, one, a few, unsorted,
ids in the billions, more than a thousand) beside other jobs at other priorities.

What the rules leave free is not compared: the newsletter's priority, as long as it is one value below 0
(NEWSLETTER_PRIORITY is the course's), whether its ids come back as a list or a tuple, and what enqueue leaves
to its defaults besides.

    jobs.py        what both checks share: the other jobs a scenario installs, what an answer stored
    route.py       09.route
    newsletter.py  09.newsletter
"""

from __future__ import annotations

from course.grading.checks import exercise_check
from course.grading.checks.quiz import Question, ask, multiple_choice
from course.grading.checks.lab09 import newsletter, route  # noqa: F401 (each registers its exercise's check)
from course.grading.checks.lab09.newsletter import reference_newsletter  # noqa: F401 (the tests compare with it)
from course.grading.trial import Trial


@exercise_check("09.predict_fifo")
def predict_fifo_check(t: Trial, predict_fifo):
    ask(t, "predict_fifo", predict_fifo, "b",
        "how long the confirmation waits behind 240 newsletter jobs in one FIFO queue",
        "look at what the run measured: how many newsletter jobs were claimed before the confirmation?")


@exercise_check("09.predict_priorities")
def predict_priorities_check(t: Trial, predict_priorities):
    ask(t, "predict_priorities", predict_priorities, "b",
        "how long the confirmation waits with the newsletter at a lower priority",
        "look at what the run measured: what could still be in a worker's hands when the confirmation arrived?")


@exercise_check("09.predict_two_queues")
def predict_two_queues_check(t: Trial, predict_two_queues):
    ask(t, "predict_two_queues", predict_two_queues, "b",
        "the confirmation's wait and the newsletter's throughput with a queue and a worker each",
        "look at what the run measured: how many workers served the newsletter?")


quiz = multiple_choice(
    "09.quiz",
    q1=Question("c", "the confirmation behind 48,000 newsletter jobs at 40 jobs/s",
                "how many seconds does it take to get through 48,000 jobs at 40 a second?"),
    q2=Question("b", "the longest a confirmation waits with priorities on one queue",
                "it jumps the waiting jobs, but both workers are already busy with one newsletter job each"),
    q3=Question("b", "what a dedicated urgent worker costs",
                "how many workers are left for the newsletter, and what happens to its 20 minutes?"),
    q4=Question("c", "the alert that catches late confirmations",
                "which number tells you a guest has been waiting too long, whatever the newsletter does?"),
    q5=Question("b", "the newsletter during a flash sale, with priorities in one queue",
                "look at the flash sale's plot: what did the workers claim while confirmations were waiting?"),
)
