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

-- name: examples_install
-- StayHub's two recurring jobs need something to work on: stays (some held, unpaid, until a time;
-- some paid, with a check-out day), their invoices, and a log of every time a scheduled job ran.
-- (Names of their own, so they sit beside course/core/sql/stayhub.sql's bookings in one schema.)
CREATE TABLE IF NOT EXISTS stays (
    id         bigint      PRIMARY KEY,
    guest      text        NOT NULL,
    status     text        NOT NULL CHECK (status IN ('held', 'paid', 'released')),
    held_until timestamptz,                          -- an unpaid hold lapses at this time
    check_out  date        NOT NULL
);
-- One invoice per stay: the primary key makes the nightly job safe to run twice.
CREATE TABLE IF NOT EXISTS stay_invoices (
    stay_id    bigint      PRIMARY KEY REFERENCES stays (id),
    night      date        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- No unique constraint on purpose: every run of a scheduled job leaves a row, duplicates included.
CREATE TABLE IF NOT EXISTS task_runs (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task       text        NOT NULL,
    slot       timestamptz NOT NULL,
    job_id     bigint      NOT NULL,
    changed    integer     NOT NULL,                 -- invoices made, or holds released, by this run
    ran_at     timestamptz NOT NULL DEFAULT now()
);

-- name: examples_seed
-- A handful of stays around a few nights from `night` on: paid stays ending on each of the first four
-- days, and unpaid holds that lapse around 02:00 on the mornings after.
INSERT INTO stays (id, guest, status, held_until, check_out)
SELECT id, guest, status, (%(night)s::date + held_day + held_at) AT TIME ZONE 'UTC', %(night)s::date + stays_after
FROM (VALUES (981, 'Ana Souza',     'paid', NULL::int, NULL::time, 0),
             (982, 'Ben Okafor',    'paid', NULL,      NULL,       0),
             (983, 'Chen Wei',      'paid', NULL,      NULL,       0),
             (984, 'Dana Ivanova',  'paid', NULL,      NULL,       1),
             (985, 'Emeka Nwosu',   'paid', NULL,      NULL,       2),
             (986, 'Farah Haddad',  'paid', NULL,      NULL,       3),
             (987, 'Gus Lindqvist', 'held', 1,         '01:57',    5),
             (988, 'Hana Sato',     'held', 1,         '02:03',    6),
             (989, 'Ines Duarte',   'held', 2,         '02:04',    5),
             (990, 'Jon Berg',      'held', 3,         '09:00',    7))
     AS seed (id, guest, status, held_day, held_at, stays_after)
ON CONFLICT (id) DO NOTHING;

-- name: make_invoices
-- The nightly job's work: an invoice for every paid stay that ended on `night`. ON CONFLICT DO NOTHING
-- makes a second run of the same night add nothing.
INSERT INTO stay_invoices (stay_id, night)
SELECT id, check_out FROM stays
WHERE status = 'paid' AND check_out = %(night)s
ON CONFLICT (stay_id) DO NOTHING;

-- name: release_holds
-- The five-minute job's work. The WHERE clause makes it safe to run twice: a released hold is no
-- longer 'held', so a second run changes nothing.
UPDATE stays SET status = 'released'
WHERE status = 'held' AND held_until <= %(slot)s;

-- name: log_task_run
INSERT INTO task_runs (task, slot, job_id, changed)
VALUES (%(task)s, %(slot)s, %(job_id)s, %(changed)s);
