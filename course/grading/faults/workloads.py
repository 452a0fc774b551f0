"""Work that checks hand to the fault injector's worker processes, beside the learner's own code.

It lives here, not in the check's module, because those workers run in the notebook's sandbox when a
class is graded, and the sandbox cannot read course/grading/checks (the reference answers are there): a
handler defined in a check would be pickled by reference and fail to import in the worker.
"""

from __future__ import annotations

import time

SLOW_WORK_S = 2.5  # lab 04's slow job: 2.5 times its 1 s lease, so only a heartbeat keeps it to one run


def slow_job(job, conn):
    """Slow, then one effect row (table `effects`): a job that outlives its lease unless a heartbeat extends it."""
    time.sleep(SLOW_WORK_S)
    conn.execute("INSERT INTO effects (job_id) VALUES (%s)", [job.id])
