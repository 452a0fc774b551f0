"""Work that checks hand to the fault injector's worker processes, beside the learner's own code.

It lives here, not in the check's module, because those workers run in the notebook's sandbox when a
class is graded, and the sandbox cannot read course/grading/checks (the reference answers are there): a
handler defined in a check would be pickled by reference and fail to import in the worker.
"""

from __future__ import annotations

import time

from course.infra.processes import HangBound

SLOW_WORK_S = 2.5  # lab 04's slow job: 2.5 times its 1 s lease, so only a heartbeat keeps it to one run


OVERTAKE_WAIT_S = 10.0  # a bound on a hang: how long a run whose lease ran out waits to be extended or taken


def slow_job(job, conn):
    """Slow, then one effect row (table `effects`): a job that outlives its lease unless a heartbeat extends it.

    At the end of its work it looks at its own row. A lease that ran out waits until a beat extends it or another
    worker takes the job, and a job taken meanwhile is noted (table `overtaken`): a heartbeat that does not
    extend the lease is then seen whatever the machine's load, not only when another worker polls in time."""
    time.sleep(SLOW_WORK_S)
    bound = HangBound(OVERTAKE_WAIT_S)
    while True:
        row = conn.execute("SELECT lease_token IS NOT DISTINCT FROM %s, run_at <= now() FROM jobs WHERE id = %s",
                           [job.lease_token, job.id]).fetchone()
        if row is not None and not row[0]:
            conn.execute("INSERT INTO overtaken (job_id) VALUES (%s)", [job.id])
            break
        if row is None or not row[1] or bound.passed():
            break
        time.sleep(0.05)
    conn.execute("INSERT INTO effects (job_id) VALUES (%s)", [job.id])
