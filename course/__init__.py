"""Background jobs and queues in PostgreSQL: the course's reference package, in layers.

Read it bottom up. A module imports only from its own layer or the layers below it
(tests/authoring/test_layout.py holds every module to that):

    errors      every layer's exceptions: one line saying what to pass, and that nothing was written
    infra/      what starts real things: PostgreSQL (db, pgserver, private_server), NATS (broker,
                nats_server, nats_cluster), child processes (processes) and what they did (eventlog),
                and what this machine has (doctor)
    core/       the reference queue, what a production engineer would lift out: sql/, queue, backoff,
                payloads, arguments, worker, scheduler, outbox, monitoring
    programs/   the labs' programs: the Tiffin and StayHub systems, the email provider, and each lab's
                demos (retry_trace, newsletter, queueing_theory, rush, pools, saturation_view,
                monitoring_view, dead_rows, jetstream_*), and the labs' tables as SQL (sql/);
                course/grading/labs.toml says which lab uses which, `python -m course map` prints it
    grading/    what grades: the manifest, checks, hints, progress, the fault injector (faults/), and
                the commands `compare`, `check` and `grade`
    authoring/  the authors' tools: build, layout (`python -m course map`), the mutation sweep
    evidence/   bench and chaos: how fast the queue is, and what it loses when things die
    cli         `python -m course ...`

Nothing is imported here: `from course.core import queue` says where a name lives.
"""
