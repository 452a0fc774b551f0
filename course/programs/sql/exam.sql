-- Lab 14, the final exam: one jobs table that every piece of the learner's queue runs on, unchanged.
--
-- Lab 03's claim was written for a simple table (run_at, locked_until, attempts); lab 04's ack and
-- heartbeat for the course queue's (a `lease_token`, run_at as the end of the lease, and the bookkeeping
-- columns claimed_by and claimed_at, which a heartbeat may also set). The exam does not rewrite anyone's
-- SQL: it gives both the columns they use, with one meaning each.
--   * A job is hidden while either run_at or locked_until is in the future: lab 03's claim sets
--     locked_until, lab 04's heartbeat pushes run_at; the lease ends at the later of the two.
--   * `lease_token` is the claim's fencing token. Every claim adds one to `attempts` (lab 03's rule), so
--     the pair (id, attempts) names one claim, and the token is computed from it: a claim written for
--     lab 03 issues a new token without knowing the column exists, and lab 04's `lease_token = %s`
--     fences on it.

-- name: schema
CREATE TABLE jobs (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type         text        NOT NULL,
    payload      jsonb       NOT NULL,
    run_at       timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz,
    attempts     integer     NOT NULL DEFAULT 0,
    max_attempts integer     NOT NULL DEFAULT 3,
    lease_token  uuid        GENERATED ALWAYS AS (md5(id::text || ':' || attempts::text)::uuid) STORED,
    claimed_by   text,        -- lab 04's bookkeeping: the exam reads neither
    claimed_at   timestamptz,
    last_error   text
);
CREATE INDEX jobs_ready ON jobs (run_at);

-- The work's effect: one row a run that committed. The effect commits in the ack's transaction, so a
-- run whose ack deleted nothing leaves no row: two rows for one job is a duplicated effect.
CREATE TABLE ledger (
    job_id    bigint      NOT NULL,
    worker    integer     NOT NULL,
    attempt   integer     NOT NULL,
    booked_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Where 07's route sends a job: `reason` is the route's, `attempts` the attempt that died.
CREATE TABLE dead_jobs (
    id        bigint      PRIMARY KEY,
    type      text        NOT NULL,
    payload   jsonb       NOT NULL,
    attempts  integer     NOT NULL,
    reason    text        NOT NULL,
    error     text,
    died_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The exam's eyes, not part of anyone's queue: every claim (an UPDATE that adds to attempts) is written
-- down with whether the job was free at that instant. clock_timestamp(), not now(): a claim that saw
-- the job free at its statement's start is never blamed for the time its transaction took.
CREATE TABLE claim_log (
    job_id     bigint      NOT NULL,
    attempt    integer     NOT NULL,
    was_free   boolean     NOT NULL,
    held_until timestamptz,
    backend    integer     NOT NULL DEFAULT pg_backend_pid(),
    app        text        NOT NULL DEFAULT current_setting('application_name'),  -- which worker claimed
    at         timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE FUNCTION exam_watch_claims() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    busy_until timestamptz := greatest(OLD.run_at, OLD.locked_until);
BEGIN
    INSERT INTO claim_log (job_id, attempt, was_free, held_until)
    VALUES (OLD.id, NEW.attempts, busy_until <= clock_timestamp(), busy_until);
    RETURN NEW;
END $$;
CREATE TRIGGER exam_watch_claims BEFORE UPDATE ON jobs
    FOR EACH ROW WHEN (NEW.attempts > OLD.attempts) EXECUTE FUNCTION exam_watch_claims();

-- name: watch_deletes
-- The exam's eyes on every delete of a job (an ack, a burial; not part of anyone's queue, and not shown in
-- the lab): which backend deleted it, at which attempt, and which backend made the claim of that attempt
-- (claim_log). A worker acks and buries only on the connection it claimed on (it lets a job go when that
-- connection is cut), so a delete by another backend is an ack with a lease that was no longer its own.
-- The server sees it, whatever a worker's process writes in the run's history (in class grading the
-- workers run the learner's code; they may not write this table: the trigger does, with its owner's rights).
CREATE TABLE delete_log (
    job_id     bigint      NOT NULL,
    attempt    integer     NOT NULL,
    backend    integer     NOT NULL DEFAULT pg_backend_pid(),
    claimed_by integer,    -- the backend whose claim made `attempt`; NULL if none did (a claim that deletes)
    app        text        NOT NULL DEFAULT current_setting('application_name'),
    at         timestamptz NOT NULL DEFAULT clock_timestamp(),
    xact       xid8        NOT NULL DEFAULT pg_current_xact_id()  -- the transaction that deleted it
);
CREATE FUNCTION exam_watch_deletes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = exam AS $$
BEGIN
    INSERT INTO delete_log (job_id, attempt, claimed_by)
    VALUES (OLD.id, OLD.attempts, (SELECT backend FROM claim_log WHERE job_id = OLD.id AND attempt = OLD.attempts
                                   ORDER BY at DESC LIMIT 1));
    RETURN OLD;
END $$;
CREATE TRIGGER exam_watch_deletes AFTER DELETE ON jobs FOR EACH ROW EXECUTE FUNCTION exam_watch_deletes();
-- A ledger or dead-letter row counts only if it committed in the transaction that deleted its job: what a
-- worker's ack (the effect booked, then the job deleted) and its burial (one statement) make. The workers'
-- role must add such rows, and so may a piece of the learner's, running in a worker: a row written apart
-- from its job's delete (to hide a job an ack lost) is then no ack. Each row is stamped with its transaction
-- by a trigger the role cannot skip (it owns neither table, nor may it replace the stamp: BEFORE INSERT).
ALTER TABLE ledger ADD COLUMN xact xid8;
ALTER TABLE dead_jobs ADD COLUMN xact xid8;
CREATE FUNCTION exam_stamp_xact() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.xact := pg_current_xact_id();
    RETURN NEW;
END $$;
CREATE TRIGGER exam_stamp_xact BEFORE INSERT ON ledger FOR EACH ROW EXECUTE FUNCTION exam_stamp_xact();
CREATE TRIGGER exam_stamp_xact BEFORE INSERT ON dead_jobs FOR EACH ROW EXECUTE FUNCTION exam_stamp_xact();

-- name: lease_of
-- What the exam reads in the claim's own transaction, right after the learner's claim returned: the
-- row is locked by that claim's UPDATE, so nobody can have changed it in between.
SELECT lease_token, attempts, max_attempts, greatest(run_at, locked_until) AS held_until, type, payload
FROM jobs WHERE id = %(id)s;

-- name: hold_row
-- Before an ack or a heartbeat, the exam locks the row and reads whose lease it is: what the learner's
-- statement then does is seen with nobody acting in between.
SELECT lease_token, greatest(run_at, locked_until) AS held_until, now() AS now
FROM jobs WHERE id = %(id)s FOR UPDATE;

-- name: waiting_job
-- The row-lock cue's candidate: the oldest job never claimed. Read without a lock: see lock_job.
SELECT id FROM jobs WHERE attempts = 0 ORDER BY run_at LIMIT 1;

-- name: lock_job
-- The row-lock cue locks its candidate by id alone, and keeps it only if it is still unclaimed. Not
-- `WHERE attempts = 0 ... FOR UPDATE SKIP LOCKED` in one statement: when a worker's claim commits between
-- that statement's snapshot and its lock, PostgreSQL locks the claimed row's new version, finds it no
-- longer matches, passes on to the next row, and keeps the lock on the first: the cue then held a job a
-- worker was running, and that worker's ack waited for it. By id alone the recheck always matches, so
-- the one row locked is the one returned, and the cue rolls back when it turns out to be claimed.
SELECT attempts FROM jobs WHERE id = %(id)s FOR UPDATE SKIP LOCKED;

-- name: claims_waiting_for
-- The worker connections whose claim waits for the cue's transaction: the transaction id the cue's row
-- lock is written with (its only lock on a row, see lock_job) is the one they wait for, and they are inside
-- their claim piece (worker.py names a connection `...-claiming` only while the piece runs). Not
-- pg_blocking_pids alone: it also counts the exam's own statements (the row locks around an ack or a
-- heartbeat) and whatever else a worker does outside its claim.
SELECT waiter.application_name
FROM pg_locks AS held
JOIN pg_locks AS wait ON wait.locktype = 'transactionid' AND wait.transactionid = held.transactionid
                     AND NOT wait.granted
JOIN pg_stat_activity AS waiter ON waiter.pid = wait.pid
WHERE held.pid = %(holder)s AND held.locktype = 'transactionid' AND held.granted
  AND waiter.application_name LIKE %(claiming)s
ORDER BY waiter.application_name;

-- name: book
INSERT INTO ledger (job_id, worker, attempt) VALUES (%(id)s, %(worker)s, %(attempt)s);

-- name: retry
-- 07's route said Retry(delay_s): hand the job back, visible again after the delay. Fenced: only the
-- lease holder hands a job back. It returns the backoff's promise, worked out apart from the row it
-- wrote: when the job is due again, on the server's clock, the one the claim log's times are read on. No
-- claim of its next attempt may come before it, whatever the row says then (course/grading/exam/spacing.py).
UPDATE jobs SET run_at = now() + make_interval(secs => %(delay_s)s), locked_until = NULL,
                last_error = %(error)s
WHERE id = %(id)s AND lease_token = %(lease_token)s
RETURNING now() + make_interval(secs => %(delay_s)s) AS due;

-- name: bury
-- 07's route said Dead(reason): the job moves to dead_jobs, with the attempt it died at. Fenced too.
WITH gone AS (
    DELETE FROM jobs WHERE id = %(id)s AND lease_token = %(lease_token)s
    RETURNING id, type, payload, attempts
)
INSERT INTO dead_jobs (id, type, payload, attempts, reason, error)
SELECT id, type, payload, attempts, %(reason)s, %(error)s FROM gone;

-- name: worker_role
-- The workers log in as a role of their own, not the server's superuser: in class grading they run the
-- learner's code in a sandbox, and a superuser could run programs on the grader's machine (COPY ... TO
-- PROGRAM) or rewrite what the exam reads. The role may do what a queue does to `jobs` and add rows to
-- the ledger and the dead-letter table; it may not change or remove them, and it may only read the claim
-- log, which the trigger writes with its owner's rights. Its password is the run's own, set next (soak.py).
CREATE ROLE exam_worker LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION;
GRANT USAGE ON SCHEMA exam TO exam_worker;
GRANT SELECT, UPDATE, DELETE ON jobs TO exam_worker;
GRANT SELECT, INSERT ON ledger, dead_jobs TO exam_worker;
GRANT SELECT ON claim_log TO exam_worker;
ALTER FUNCTION exam_watch_claims() SECURITY DEFINER SET search_path = exam;
