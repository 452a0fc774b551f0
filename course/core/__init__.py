"""The reference queue: what a production engineer would lift out.

    sql/        every statement the queue runs, as SQL whose comments say why (`sql.show("claim")`)
    queue       enqueue, claim, ack, ack_many, extend_lease, fail, redrive, stats
    backoff     how long a failed job waits: capped exponential backoff with full jitter
    payloads    what a job's payload may hold (JSON, no NUL), checked before anything is written
    arguments   the checks every public function runs on its arguments: one line saying what to pass
    worker      claim, run, heartbeat, ack; drain on SIGTERM (`python -m course worker`)
    handlers    which function runs which job type, and the payload it needs (a worker's Registry)
    operations  the queue operations a worker calls, and the check that a harness's own can take the calls
    worker_process  a worker as a process: spawn, its connection string, a stop while it starts
    scheduler   recurring jobs, enqueued once per slot by any number of schedulers
    outbox      the transactional outbox and its relay to a broker
    monitoring  a snapshot of the queue and the alert conditions read from it (lab 11's dashboard is
                course/programs/monitoring_view.py)

It imports only course.errors and course.infra (for a database to connect to and processes to start).
"""
