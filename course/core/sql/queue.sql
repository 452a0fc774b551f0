-- Every statement the reference queue runs. `course.core.sql.show("queue", "claim")` prints one of them.
-- Each block starts with "-- name: <name>"; parameters are psycopg placeholders (percent, name in parentheses,
-- then s, or b for a value sent in binary).
-- Notifications go to the channel 'jobs:<schema>', so labs in different schemas do not wake each other.

-- name: enqueue
-- Store one job. With a unique_key already taken by an unfinished job, store nothing and return no row.
-- due_at starts equal to run_at and stays: run_at moves at every claim and retry, due_at never does.
INSERT INTO jobs (queue, type, payload, priority, run_at, due_at, max_attempts, unique_key)
VALUES (%(queue)s, %(type)s, %(payload)s::jsonb, %(priority)s,
        coalesce(%(run_at)s::timestamptz, now() + make_interval(secs => %(delay_s)s)),
        coalesce(%(run_at)s::timestamptz, now() + make_interval(secs => %(delay_s)s)),
        %(max_attempts)s, %(unique_key)s)
ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL DO NOTHING
RETURNING id;

-- name: enqueue_many
-- Store many jobs in one statement: one round trip however many there are.
INSERT INTO jobs (queue, type, payload, priority, run_at, due_at, max_attempts, unique_key)
SELECT queue, type, payload, priority, now() + make_interval(secs => delay_s),
       now() + make_interval(secs => delay_s), max_attempts, unique_key
FROM unnest(%(queues)s::text[], %(types)s::text[], %(payloads)s::jsonb[], %(priorities)s::smallint[],
            %(delays_s)s::float8[], %(max_attempts)s::int[], %(unique_keys)s::text[])
     AS new (queue, type, payload, priority, delay_s, max_attempts, unique_key)
ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL DO NOTHING
RETURNING id;

-- name: notify
-- Wake listening workers. Sent at commit, so a rolled-back enqueue wakes nobody.
-- Channel names are limited to 63 bytes; LISTEN truncates a longer name the same way.
SELECT pg_notify(left('jobs:' || current_schema(), 63), %(queue)s);

-- name: channel
-- The channel `notify` wakes this schema's workers on, for their LISTEN (which takes no parameters:
-- course.core.queue.listen puts the name into the statement, quoted).
SELECT left('jobs:' || current_schema(), 63);

-- name: where
-- Where this connection's tables resolve: its schema (NULL when no schema on the search path exists),
-- the search path itself (to name in an error), and whether the queue's jobs table is there.
SELECT current_schema() AS schema, current_setting('search_path') AS search_path,
       to_regclass('jobs') IS NOT NULL AS installed;

-- name: claim
-- Take up to `limit` visible jobs, most urgent first: the highest priority, then the longest due (the
-- earliest run_at), then the first stored (the lowest id). SKIP LOCKED: rows another worker is claiming
-- right now are passed over instead of waited for. The CTE locks exactly the rows the UPDATE then
-- changes. The UPDATE finds them by primary key (= ANY of an array): joined to the CTE instead, the
-- planner may hash the whole table (at 100 per claim with 20,000 jobs waiting it read every row, 5 ms
-- a claim instead of 0.9). The last SELECT returns them in the order they were chosen.
WITH next AS (
    SELECT id, priority, run_at
    FROM jobs
    WHERE queue = %(queue)s AND run_at <= now()
    ORDER BY priority DESC, run_at, id
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE jobs
    SET run_at      = now() + make_interval(secs => %(lease_s)s),
        lease_token = gen_random_uuid(),
        attempts    = jobs.attempts + 1,
        claimed_by  = %(worker)s,
        claimed_at  = now()
    WHERE jobs.id = ANY(ARRAY(SELECT id FROM next))
    RETURNING jobs.id, jobs.queue, jobs.type, jobs.payload, jobs.priority, jobs.attempts,
              jobs.max_attempts, jobs.lease_token, jobs.run_at AS lease_expires_at
)
SELECT claimed.*
FROM claimed JOIN next USING (id)
ORDER BY next.priority DESC, next.run_at, next.id;

-- name: ack
-- Done: delete the job, but only while our lease is the current one. A worker whose lease ran out and
-- whose job was claimed again deletes nothing.
DELETE FROM jobs WHERE id = %(id)s AND lease_token = %(lease_token)s;

-- name: ack_many
-- The arrays go in binary (the b ending their placeholders): as text, psycopg writes and escape-checks
-- each element and the server parses it back, a sixth of a worker's own CPU (94k -> 78k instructions a job).
DELETE FROM jobs
USING unnest(%(ids)b::bigint[], %(lease_tokens)b::uuid[]) AS done (id, lease_token)
WHERE jobs.id = done.id AND jobs.lease_token = done.lease_token
RETURNING jobs.id;

-- name: ack_and_claim
-- ack_many and claim in one statement: a worker's step once jobs have finished and slots are free. One
-- round trip and one commit for both, where the two statements in a transaction take four round trips
-- (BEGIN, ack, claim, COMMIT): a sixth less of a worker's own CPU per job. The CTEs `next` and `claimed`
-- are the claim's, but that `next` passes over the jobs being acked here (their lease may have run out,
-- leaving them visible). Each row also says `lost`: the ids asked to ack whose lease no longer held,
-- NULL when every lease held (so repeating it on every row costs nothing); when nothing is claimed, the
-- statement still returns that one row.
WITH acked AS (
    DELETE FROM jobs
    USING unnest(%(ids)b::bigint[], %(lease_tokens)b::uuid[]) AS done (id, lease_token)
    WHERE jobs.id = done.id AND jobs.lease_token = done.lease_token
    RETURNING jobs.id
), next AS (
    SELECT id, priority, run_at
    FROM jobs
    WHERE queue = %(queue)s AND run_at <= now() AND id <> ALL(%(ids)b::bigint[])
    ORDER BY priority DESC, run_at, id
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE jobs
    SET run_at      = now() + make_interval(secs => %(lease_s)s),
        lease_token = gen_random_uuid(),
        attempts    = jobs.attempts + 1,
        claimed_by  = %(worker)s,
        claimed_at  = now()
    WHERE jobs.id = ANY(ARRAY(SELECT id FROM next))
    RETURNING jobs.id, jobs.queue, jobs.type, jobs.payload, jobs.priority, jobs.attempts,
              jobs.max_attempts, jobs.lease_token, jobs.run_at AS lease_expires_at
)
SELECT (SELECT array_agg(asked) FROM unnest(%(ids)b::bigint[]) AS asked
        WHERE asked NOT IN (SELECT id FROM acked)) AS lost,
       claimed.*
FROM (SELECT) AS always_one_row
LEFT JOIN (claimed JOIN next USING (id)) ON true
ORDER BY next.priority DESC, next.run_at, next.id;

-- name: extend_lease
-- The heartbeat: push the end of our lease forward, only if it is still ours.
UPDATE jobs SET run_at = now() + make_interval(secs => %(lease_s)s)
WHERE id = %(id)s AND lease_token = %(lease_token)s
RETURNING run_at AS lease_expires_at;

-- name: extend_leases
UPDATE jobs SET run_at = now() + make_interval(secs => %(lease_s)s)
FROM unnest(%(ids)s::bigint[], %(lease_tokens)s::uuid[]) AS running (id, lease_token)
WHERE jobs.id = running.id AND jobs.lease_token = running.lease_token
RETURNING jobs.id;

-- name: retry
-- Hand the job back to run again after a delay. Clearing the lease token fences out our own late ack.
UPDATE jobs
SET run_at = now() + make_interval(secs => %(delay_s)s), lease_token = NULL, claimed_by = NULL,
    last_error = %(error)s
WHERE id = %(id)s AND lease_token = %(lease_token)s;

-- name: bury
-- Move the job to the dead-letter table, in one statement: it is in exactly one of the two tables.
-- attempts counts runs: a claim that found the job out of attempts buries it without running it.
WITH dead AS (
    DELETE FROM jobs WHERE id = %(id)s AND lease_token = %(lease_token)s RETURNING *
)
INSERT INTO dead_jobs (id, queue, type, payload, priority, attempts, max_attempts, unique_key,
                       created_at, reason, error, traceback)
SELECT id, queue, type, payload, priority, least(attempts, max_attempts), max_attempts, unique_key,
       created_at, %(reason)s, %(error)s, %(traceback)s
FROM dead
RETURNING id;

-- name: fate
-- Where a job is whose fail() lost its answer with the connection, asked once a retry of that fail()
-- found the lease gone: dead, or waiting for its retry with our attempt count (our first report most
-- likely committed), or neither (no row: it has moved on, acked or claimed by another worker since).
SELECT 'dead' FROM dead_jobs WHERE id = %(id)s
UNION ALL
SELECT 'retry scheduled' FROM jobs WHERE id = %(id)s AND lease_token IS NULL AND attempts = %(attempts)s;

-- name: gone
-- Which of these jobs are in neither table. Asked of the jobs an ack_many retried after a lost
-- connection: no other worker can finish a job while our lease holds, so one that is gone was deleted
-- by our first ack_many, whose answer the connection lost.
SELECT id FROM unnest(%(ids)s::bigint[]) AS asked (id)
WHERE NOT EXISTS (SELECT FROM jobs WHERE jobs.id = asked.id)
  AND NOT EXISTS (SELECT FROM dead_jobs WHERE dead_jobs.id = asked.id);

-- name: alert_dead
-- Tell whoever listens (a dashboard, an on-call bot) that a job was dead-lettered.
SELECT pg_notify(left('dead_jobs:' || current_schema(), 63), %(message)s);

-- name: redrive
-- Move dead jobs back to the queue with a fresh budget of attempts. A dead job whose unique key an
-- unfinished job holds again stays where it is (it would be a duplicate); of several dead jobs with one
-- key, only the newest comes back (the others would be duplicates of it).
WITH chosen AS (
    SELECT id, unique_key, row_number() OVER (PARTITION BY unique_key ORDER BY id DESC) AS newest
    FROM dead_jobs
    WHERE (%(ids)s::bigint[] IS NULL OR id = ANY(%(ids)s::bigint[]))
      AND (%(type)s::text IS NULL OR type = %(type)s::text)
      AND (%(queue)s::text IS NULL OR queue = %(queue)s::text)
      AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.unique_key = dead_jobs.unique_key)
), revived AS (
    DELETE FROM dead_jobs
    WHERE id IN (SELECT id FROM chosen WHERE unique_key IS NULL OR newest = 1)
    RETURNING *
)
INSERT INTO jobs (id, queue, type, payload, priority, max_attempts, unique_key, created_at)
SELECT id, queue, type, payload, priority, max_attempts, unique_key, created_at FROM revived
RETURNING id, queue;

-- name: dead_jobs
SELECT id, queue, type, payload, attempts, max_attempts, reason, error, traceback, died_at
FROM dead_jobs
ORDER BY died_at DESC, id DESC
LIMIT %(limit)s;

-- name: queue_stats
-- Per queue: what waits, what runs, what is scheduled for later, and how late the oldest waiting job
-- is: since it was first due (due_at), which is what customers feel. Not since it was enqueued: a job
-- enqueued with an hour's delay is on time the moment it becomes due.
SELECT queue,
       count(*) FILTER (WHERE run_at <= now())                        AS ready,
       count(*) FILTER (WHERE lease_token IS NOT NULL AND run_at > now()) AS in_flight,
       count(*) FILTER (WHERE lease_token IS NULL AND run_at > now())     AS scheduled,
       coalesce(extract(epoch FROM now() - min(due_at) FILTER (WHERE run_at <= now())), 0)::float8
                                                                      AS oldest_ready_age_s
FROM jobs
GROUP BY queue
ORDER BY queue;

-- name: table_stats
-- The dead-letter count, and the jobs table's dead tuples: every claim and ack leaves one behind
-- until vacuum removes it. (The statistics lag by a second or so.)
SELECT (SELECT count(*) FROM dead_jobs)::int                                         AS dead_letters,
       coalesce((SELECT n_dead_tup FROM pg_stat_user_tables
                 WHERE relid = 'jobs'::regclass), 0)::bigint                         AS dead_tuples;
