"""Background jobs and queues in PostgreSQL: the course's reference package.

Read it bottom up; nothing low imports anything higher.

    db, pgserver      which PostgreSQL (yours, Docker, or the course's own); start, attach, stop
    sql/              every statement the queue runs, as SQL
    arguments         the checks every public function runs on its arguments (one line saying what to pass)
    queue, backoff    enqueue, claim, ack, extend_lease, fail, redrive, stats
    worker            claim, run, heartbeat, ack; drain on SIGTERM
    scheduler, outbox recurring jobs; the outbox relay to a broker (broker: NATS JetStream)
    systems/          the real programs the labs run: checkout app, email provider, StayHub
    grading/          the manifest, checks, hints, progress, the fault injector
    cli               `python -m course ...`
"""

from . import db, queue  # noqa: F401  (so `import course; course.db.connect()` works)
