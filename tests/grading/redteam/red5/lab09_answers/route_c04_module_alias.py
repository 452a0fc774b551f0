# EXERCISE: 09.route
# EXPECT: correct
# RULE: correct (module aliases, keyword args)
from course.programs import newsletter as nl
from course.core import queue as q

def enqueue_job(conn, job_type, payload):
    seconds = nl.IMPACT[job_type].late_after_s
    return q.enqueue(conn, type=job_type, payload=payload, queue=nl.URGENT if seconds <= nl.URGENT_WITHIN_S else nl.BULK)
