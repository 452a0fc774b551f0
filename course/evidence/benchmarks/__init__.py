"""The pieces behind `python -m course bench` and `python -m course chaos`.

    drainer     a process draining the jobs table in a tight loop (bare SQL or course.core.queue)
    statements  the queue's claim and ack as the bare loops send them: SQL and names from queue.sql
    peers       pgqueuer and procrastinate, driven with their own recommended settings
    apps        the no-op and latency-stamping handlers our benchmark workers run
    measure     one function per measurement: drains, pgbench, latency, enqueue rates
    tables      the results as text tables (rates, CPU per job, the machine and its load)
    linechild   a child process spoken to in lines of JSON (drainers, peers)
    cpu         CPU time of processes and of the server, from /proc
    profiling   the evidence for a missed target: EXPLAIN ANALYZE of the claim, py-spy of a worker
"""
