-- StayHub's two recurring jobs, lab 08's examples (course/programs/stayhub_recurring.py): the stays
-- they work on, and what each run does. `sql.show("stayhub_recurring", "make_invoices")` prints one.

-- name: install
-- StayHub's two recurring jobs need something to work on: stays (some held, unpaid, until a time;
-- some paid, with a check-out day), their invoices, and a log of every time a scheduled job ran.
-- (Names of their own, so they sit beside stayhub.sql's bookings in one schema.)
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

-- name: seed
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
