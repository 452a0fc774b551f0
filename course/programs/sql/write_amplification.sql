-- Lab 11, "write amplification": what one job writes, by the way it is claimed. The reference queue's own
-- statements are in course/core/sql/queue.sql; these are the two other designs it is measured against,
-- and the questions asked of the write-ahead log. Parameters are psycopg placeholders, as in queue.sql.

-- name: lock_delete
-- The loop that holds its row lock while the job runs (its claim is monitoring.sql's claim_search, in
-- the same transaction): done means deleted, and the commit releases the lock. No lease is written.
DELETE FROM jobs WHERE id = ANY(%(ids)s::bigint[]);

-- name: unindexed_deadline
-- The other design for a lease: leave run_at alone and keep the lease's end in a column no index holds.
-- An UPDATE that changes no indexed column can be HOT (heap-only): the new row version goes on the same
-- page, linked from the old one, and no index gets an entry for it, if the page has room. fillfactor
-- leaves that room: the table's pages are filled only that far by inserts.
ALTER TABLE jobs ADD COLUMN lease_until timestamptz;

-- name: hot_claim
-- The claim of that design: the jobs_next index still finds the due jobs in order, but it no longer
-- knows which are leased: every claim reads past the jobs in flight, row by row, to skip them.
WITH next AS (
    SELECT id
    FROM jobs
    WHERE queue = %(queue)s AND run_at <= now() AND (lease_until IS NULL OR lease_until <= now())
    ORDER BY priority DESC, run_at, id
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
)
UPDATE jobs
SET lease_until = now() + make_interval(secs => %(lease_s)s),
    lease_token = gen_random_uuid(),
    attempts    = jobs.attempts + 1,
    claimed_by  = %(worker)s,
    claimed_at  = now()
WHERE jobs.id = ANY(ARRAY(SELECT id FROM next))
RETURNING jobs.id, jobs.lease_token;

-- name: hot_claim_search
-- That claim's search alone, to run under EXPLAIN (ANALYZE, BUFFERS) and roll back.
SELECT id
FROM jobs
WHERE queue = %(queue)s AND run_at <= now() AND (lease_until IS NULL OR lease_until <= now())
ORDER BY priority DESC, run_at, id
LIMIT %(limit)s
FOR UPDATE SKIP LOCKED;

-- name: wal_by_record
-- What was written to the WAL between two positions, by kind of record (pg_walinspect): how many of
-- each, their bytes, and the bytes of full-page images (a whole page, logged the first time it changes
-- after a checkpoint: how many depends on when checkpoints fall, not on the design).
SELECT "resource_manager/record_type" AS record, count, record_size AS bytes, fpi_size AS page_image_bytes
FROM pg_get_wal_stats(%(start)s::pg_lsn, %(end)s::pg_lsn, per_record => true)
WHERE count > 0
ORDER BY record_size DESC;

-- name: updates
-- The jobs table's updates so far, and how many of them were HOT (the statistics lag a moment).
SELECT n_tup_upd AS updates, n_tup_hot_upd AS hot_updates
FROM pg_stat_user_tables
WHERE relid = 'jobs'::regclass;
