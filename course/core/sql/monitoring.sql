-- What a queue dashboard reads, besides course.core.queue.stats(). `course.core.sql.show("monitoring", "oldest_waiting")`
-- prints one of them. Parameters are psycopg placeholders, as in queue.sql.

-- name: oldest_waiting
-- Per queue: how long the oldest job someone is waiting for has been due. That is every job that is due
-- (run_at has passed: waiting, or left behind by a dead worker) or has been tried at least once
-- (running now, or waiting for its retry: a receipt in backoff is late too). A job scheduled for later
-- that never ran (a reminder for tomorrow) is nobody's delay yet, and is left out. Counted from due_at,
-- when the job was first due, not created_at: a reminder enqueued a day ahead is not a day late.
SELECT queue, extract(epoch FROM now() - min(due_at))::float8 AS waiting_s
FROM jobs
WHERE run_at <= now() OR attempts > 0
GROUP BY queue
ORDER BY queue;

-- name: claim_search
-- The search half of the queue's claim (queue.sql, "claim"): the same WHERE, ORDER BY, LIMIT and
-- SKIP LOCKED, without the UPDATE. Run under EXPLAIN (ANALYZE, BUFFERS) and rolled back, it says how much
-- of the table a claim has to read right now, without taking any job.
SELECT id
FROM jobs
WHERE queue = %(queue)s AND run_at <= now()
ORDER BY priority DESC, run_at, id
LIMIT %(limit)s
FOR UPDATE SKIP LOCKED;

-- name: jobs_table_tuples
-- Row versions in the jobs table, as the statistics collector last heard of them (a second or so late).
SELECT coalesce(n_dead_tup, 0)::bigint AS dead, coalesce(n_live_tup, 0)::bigint AS live
FROM pg_stat_user_tables
WHERE relid = 'jobs'::regclass;

-- name: vacuum_blockers
-- Sessions whose transaction has been open longer than the limit and that pin the oldest row version
-- VACUUM must keep: through a snapshot (backend_xmin) or a transaction id of their own (backend_xid,
-- once they have written something). Idle in transaction counts; so does a long query. Oldest first.
SELECT pid, state, extract(epoch FROM now() - xact_start)::float8 AS transaction_age_s,
       left(regexp_replace(query, '\s+', ' ', 'g'), 80) AS query
FROM pg_stat_activity
WHERE datname = current_database()
  AND pid <> pg_backend_pid()
  AND backend_type <> 'autovacuum worker'   -- VACUUM's own snapshot holds nothing back
  AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
  AND xact_start < now() - make_interval(secs => %(older_than_s)s)
ORDER BY xact_start, pid;
