-- The scheduler: recurring jobs enqueued from PostgreSQL, once per slot however many schedulers run.
-- `course.core.sql.show("scheduler", "claim_slot")` prints one of these. Each block starts with
-- "-- name: <name>"; parameters are psycopg placeholders (percent, name in parentheses, s).
-- Clock changes are announced on the channel 'scheduler:<schema>'.

-- name: install
-- What to run and how often. A schedule's slots are first, first + every, first + 2 × every, ...
CREATE TABLE IF NOT EXISTS schedules (
    task       text        PRIMARY KEY,              -- 'nightly_invoices'
    job_type   text        NOT NULL,                 -- the job it enqueues (usually the task's name)
    queue      text        NOT NULL DEFAULT 'default',
    payload    jsonb       NOT NULL DEFAULT '{}',    -- each job gets this plus {"slot": "<ISO time>"}
    every      interval    NOT NULL CHECK (every >= interval '1 second'),
    first      timestamptz NOT NULL,                 -- the first slot; the others follow every `every`
    on_missed  text        NOT NULL CHECK (on_missed IN ('catch_up', 'skip'))
);

-- One row per slot a scheduler has decided: enqueued (with its job) or skipped (by the policy). The
-- primary key is the whole trick: however many schedulers insert (task, slot) at the same moment, one
-- insert wins. The row stays after its job is done (the jobs table forgets finished jobs), so a slot
-- is never enqueued twice, and the latest row is every scheduler's bookmark.
CREATE TABLE IF NOT EXISTS schedule_runs (
    task       text        NOT NULL REFERENCES schedules (task) ON DELETE CASCADE,
    slot       timestamptz NOT NULL,
    outcome    text        NOT NULL CHECK (outcome IN ('enqueued', 'skipped')),
    job_id     bigint,                               -- the job enqueued for this slot
    decided_by text        NOT NULL DEFAULT current_setting('application_name'),
    decided_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task, slot)
);

-- The simulated clock: one row, moved by hand (a lab, a check), read by every scheduler process.
CREATE TABLE IF NOT EXISTS scheduler_clock (
    only_row   boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    now        timestamptz NOT NULL
);

-- Each scheduler process says here which clock time it has finished a tick for, and how it is doing.
CREATE TABLE IF NOT EXISTS scheduler_heartbeats (
    name       text        PRIMARY KEY,
    pid        integer     NOT NULL,
    mode       text        NOT NULL,                 -- 'shared' (this table's way) or 'cron'
    clock_seen timestamptz,                          -- the last clock time it ticked for, successfully
    ticks      integer     NOT NULL DEFAULT 0,
    errors     integer     NOT NULL DEFAULT 0,
    last_error text,
    seen_at    timestamptz NOT NULL DEFAULT now()
);

-- name: add_schedule
INSERT INTO schedules (task, job_type, queue, payload, every, first, on_missed)
VALUES (%(task)s, %(job_type)s, %(queue)s, %(payload)s::jsonb, %(every)s, %(first)s, %(on_missed)s)
ON CONFLICT (task) DO UPDATE
SET job_type = excluded.job_type, queue = excluded.queue, payload = excluded.payload,
    every = excluded.every, first = excluded.first, on_missed = excluded.on_missed
RETURNING task, job_type, queue, payload, every, first, on_missed;

-- name: schedules
SELECT task, job_type, queue, payload, every, first, on_missed
FROM schedules
ORDER BY task;

-- name: last_slot
-- Where this task's schedule stands: the latest slot any scheduler has decided.
SELECT max(slot) FROM schedule_runs WHERE task = %(task)s;

-- name: claim_slot
-- The once-per-slot rule. Run it in the same transaction as the enqueue. Of several schedulers running
-- it at the same moment, one inserts the row; the others wait for that transaction to end, then insert
-- nothing and get no row back: they must not enqueue. (Had the winner rolled back, the next one in
-- line would insert it instead.)
INSERT INTO schedule_runs (task, slot, outcome)
VALUES (%(task)s, %(slot)s, 'enqueued')
ON CONFLICT (task, slot) DO NOTHING
RETURNING task, slot;

-- name: set_job
UPDATE schedule_runs SET job_id = %(job_id)s
WHERE task = %(task)s AND slot = %(slot)s;

-- name: skip_slot
-- A missed slot the schedule's policy says not to run, written down so it is never silently lost.
INSERT INTO schedule_runs (task, slot, outcome)
VALUES (%(task)s, %(slot)s, 'skipped')
ON CONFLICT (task, slot) DO NOTHING
RETURNING task, slot;

-- name: skip_slots
-- The same for many slots in one statement: after a long outage a five-minute task has thousands.
INSERT INTO schedule_runs (task, slot, outcome)
SELECT %(task)s, slot, 'skipped' FROM unnest(%(slots)s::timestamptz[]) AS missed (slot)
ON CONFLICT (task, slot) DO NOTHING
RETURNING task, slot;

-- name: runs
SELECT task, slot, outcome, job_id, decided_by, decided_at
FROM schedule_runs
WHERE %(task)s::text IS NULL OR task = %(task)s::text
ORDER BY task, slot;

-- name: clock_now
SELECT now FROM scheduler_clock;

-- name: set_clock
-- Move the simulated clock and wake every scheduler that listens.
WITH moved AS (
    INSERT INTO scheduler_clock (now) VALUES (%(now)s)
    ON CONFLICT (only_row) DO UPDATE SET now = excluded.now
    RETURNING now
)
SELECT now, pg_notify('scheduler:' || current_schema(), now::text) FROM moved;

-- name: heartbeat
INSERT INTO scheduler_heartbeats (name, pid, mode, clock_seen, ticks, errors, last_error, seen_at)
VALUES (%(name)s, %(pid)s, %(mode)s, %(clock_seen)s, %(ticks)s, %(errors)s, %(last_error)s, now())
ON CONFLICT (name) DO UPDATE
SET pid = excluded.pid, mode = excluded.mode, clock_seen = excluded.clock_seen, ticks = excluded.ticks,
    errors = excluded.errors, last_error = excluded.last_error, seen_at = now();

-- name: forget_heartbeat
DELETE FROM scheduler_heartbeats WHERE name = %(name)s;

-- name: heartbeats
SELECT name, pid, mode, clock_seen, ticks, errors, last_error, seen_at
FROM scheduler_heartbeats
ORDER BY name;
