"""The infrastructure that starts real things: PostgreSQL, NATS JetStream, child processes.

    db              which PostgreSQL (yours, Docker, or the course's own), and a connection to it
    pgserver        the embedded PostgreSQL: initdb, start, attach, stop; only its owner may reach it
    private_server  a PostgreSQL of a test's or a benchmark's own, in a temporary folder
    broker          NATS JetStream as a client sees it: which server, publish, streams, messages
    nats_server     one NATS server of our own: its binary, ports, token, process
    nats_cluster    lab 13's three servers that form one JetStream cluster, to kill a leader in
    processes       child processes: start (a function of ours too, pickled), stop by pid, never leave
                    one behind; `with processes.python(...) as child:` kills it on the way out
    eventlog        what several processes did: an append-only history, one JSON line an event
    doctor          what this machine has: versions, the database, the broker
    sandbox/        a process tree for code we do not trust: reads only what it is given, writes only its
                    scratch folder, reaches PostgreSQL only as its role, dies whole. Its package is the
                    API (Policy, Sandbox, probe); `isolation` says what this machine offers; a `warden`
                    process builds and watches each sandbox (`inside`: what runs in its children before
                    the command) from `linux` namespaces, `landlock`, `seccomp` (`pidguard` answers the
                    calls it holds), and keeps its doors (`gates`); `procfs` reads what /proc says about
                    processes; `spare_uids` gives root's sandboxes uids of their own

It knows nothing of queues: nothing here imports course.core or anything above it.
"""
