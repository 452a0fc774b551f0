"""The infrastructure that starts real things: PostgreSQL, NATS JetStream, child processes.

    db              which PostgreSQL (yours, Docker, or the course's own), and a connection to it
    pgserver        the embedded PostgreSQL: initdb, start, attach, stop; only its owner may reach it
    private_server  a PostgreSQL of a test's or a benchmark's own, in a temporary folder
    broker          the NATS JetStream server (one node or lab 13's three) and the client's publish
    processes       child processes: start, wait until ready, stop by pid, never leave one behind
    doctor          what this machine has: versions, the database, the broker

It knows nothing of queues: nothing here imports course.core or anything above it.
"""
