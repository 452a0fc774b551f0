# EXERCISE: 09.route
# EXPECT: wrong
# RULE: by-impact (minutes rounded: 150 s counts as 2 minutes)
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    queue_name = URGENT if round(impact.late_after_s / 60) <= URGENT_WITHIN_S // 60 else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
