"""Lab 11's checks pass correct answers written unlike the reference (issue 22): other wording, other
order, minutes instead of seconds done right, thousands separators, and the answer the hints spell out."""

import pytest

from course.grading import run_check

LIMIT_S = 120

# -- 11.alerts ------------------------------------------------------------------------------------------


def hints_spelled_out(snapshot):
    """The last hint, word for word."""
    messages = [f"{v.queue}: oldest job has waited {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0: messages.append(f"{snapshot.dead_letters} job(s) in the dead-letter table")
    return messages


def in_minutes_done_right(snapshot):
    """Dead letters first, counted with a thousands separator; lateness compared in minutes, exactly."""
    out = []
    if snapshot.dead_letters:
        out.append(f"Dead-letter table holds {snapshot.dead_letters:,} job{'s' if snapshot.dead_letters != 1 else ''}")
    for view in sorted(snapshot.queues, key=lambda v: -v.waiting_s):
        minutes = view.waiting_s / 60
        if minutes > LIMIT_S / 60:
            out.append(f"[{view.queue}] oldest job {minutes:.1f} min old")
    return out


def by_name_lookup(snapshot):
    """Queue names first, then snapshot.queue(name) for each; the dead letters in words and digits."""
    names = [view.queue for view in snapshot.queues]
    late = [name for name in names if snapshot.queue(name).waiting_s - LIMIT_S > 0]
    alerts = ["Queue '%s' is late" % name for name in late]
    count = snapshot.dead_letters
    return alerts + (["there are %d dead letters to look at" % count] if count > 0 else [])


def a_generator(snapshot):
    def each():
        for view in snapshot.queues:
            if not view.waiting_s <= LIMIT_S:
                yield f"{view.queue} — waited {round(view.waiting_s)}s"
        if snapshot.dead_letters >= 1:
            yield f"DLQ={snapshot.dead_letters}"
    return list(each())


@pytest.mark.parametrize("alerts", [hints_spelled_out, in_minutes_done_right, by_name_lookup, a_generator],
                         ids=lambda f: f.__name__)
def test_correct_alerts_pass(alerts):
    report = run_check("11.alerts", alerts=alerts)
    assert report.passed, report.render()


def test_the_seed_replays_the_same_scenarios():
    """Another seed draws other snapshots; a correct answer passes them too."""
    for seed in (1, 2, 3):
        report = run_check("11.alerts", alerts=hints_spelled_out, seed=seed)
        assert report.passed, report.render()


def shouted_and_glued(snapshot):
    """The queue's name in capitals, glued to other words; the count with a thousands separator."""
    alerts = [f"LATE-{v.queue.upper()}-QUEUE ({v.waiting_s / 60:.1f} min)" for v in snapshot.queues if v.waiting_s > 120]
    return alerts + [f"dead_letters={snapshot.dead_letters:,}"] * (snapshot.dead_letters > 0)


def test_a_queue_named_in_capitals_glued_to_other_words_is_named():
    report = run_check("11.alerts", alerts=shouted_and_glued)
    assert report.passed, report.render()


# -- 11.oldest_waiting (blind red team of issue 22, and the hint) -------------------------------------------


def waiting_hint_spelled_out(conn):
    rows = conn.execute("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                        "WHERE run_at <= now() OR attempts > 0 GROUP BY queue").fetchall()
    return {queue: seconds for queue, seconds in rows}


def labelled_in_a_cte(conn):
    rows = conn.execute("""
        WITH labelled AS (
            SELECT queue, due_at, CASE WHEN run_at <= now() THEN true WHEN attempts >= 1 THEN true
                                       ELSE false END AS waited_for
            FROM jobs)
        SELECT queue, EXTRACT(EPOCH FROM (now() - MIN(due_at))) FROM labelled WHERE waited_for GROUP BY queue""").fetchall()
    return {queue: float(seconds) for queue, seconds in rows}


def computed_in_python(conn):
    oldest = {}
    for queue, due_at, run_at, attempts, now in conn.execute("SELECT queue, due_at, run_at, attempts, now() FROM jobs"):
        if (run_at <= now or attempts > 0) and (queue not in oldest or due_at < oldest[queue][0]):
            oldest[queue] = (due_at, now)
    return {queue: (now - due).total_seconds() for queue, (due, now) in oldest.items()}


def distinct_on_with_the_statements_clock(conn):
    rows = conn.execute("""SELECT DISTINCT ON (queue) queue, extract(epoch FROM statement_timestamp() - due_at)
                           FROM jobs WHERE NOT (run_at > now() AND attempts = 0) ORDER BY queue, due_at""").fetchall()
    return dict((queue, float(seconds)) for queue, seconds in rows)


def queue_by_queue_skipping_the_finished(conn):
    """Several statements, each queue in turn: a queue whose jobs were all finished meanwhile is skipped."""
    waited_for = "(run_at <= now() OR attempts > 0)"
    out = {}
    for (queue,) in conn.execute(f"SELECT DISTINCT queue FROM jobs WHERE {waited_for}").fetchall():
        (age,) = conn.execute(f"SELECT extract(epoch FROM now() - min(due_at))::float8 FROM jobs WHERE queue = %s "
                              f"AND {waited_for}", [queue]).fetchone()
        if age is not None:
            out[queue] = age
    return out


@pytest.mark.parametrize("oldest_waiting", [waiting_hint_spelled_out, labelled_in_a_cte, computed_in_python,
                                            distinct_on_with_the_statements_clock, queue_by_queue_skipping_the_finished],
                         ids=lambda f: f.__name__)
def test_correct_oldest_waiting_pass(oldest_waiting):
    report = run_check("11.oldest_waiting", oldest_waiting=oldest_waiting)
    assert report.status == "passed", report.render()


# -- 11.vacuum_blockers (blind red team of issue 22, and the hint) ------------------------------------------


def blockers_hint_spelled_out(conn, older_than_s):
    rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
                        "AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < now() - "
                        "make_interval(secs => %s) ORDER BY xact_start", (older_than_s,)).fetchall()
    return [pid for (pid,) in rows]


def ages_in_a_cte(conn, older_than_s):
    rows = conn.execute("""
        WITH sessions AS (
            SELECT pid, xact_start, extract(epoch FROM now() - xact_start) AS age_s FROM pg_stat_activity
            WHERE datname = current_database() AND pid != pg_backend_pid() AND coalesce(backend_xmin, backend_xid) IS NOT NULL)
        SELECT pid FROM sessions WHERE age_s > %(limit)s ORDER BY xact_start ASC""", {"limit": older_than_s}).fetchall()
    return [row[0] for row in rows]


def filtered_in_python(conn, older_than_s):
    found = []
    for pid, started, xmin, xid, now, me, ours in conn.execute(
            "SELECT pid, xact_start, backend_xmin, backend_xid, now(), pg_backend_pid(), datname = current_database() "
            "FROM pg_stat_activity"):
        if ours and pid != me and started is not None and (xmin is not None or xid is not None) \
                and (now - started).total_seconds() > older_than_s:
            found.append((started, pid))
    return [pid for _, pid in sorted(found)]


def joined_with_pg_database(conn, older_than_s):
    rows = conn.execute("""
        SELECT a.pid FROM pg_stat_activity a JOIN pg_database d ON d.oid = a.datid AND d.datname = current_database()
        WHERE a.pid NOT IN (SELECT pg_backend_pid()) AND (a.backend_xid IS NOT NULL OR a.backend_xmin IS NOT NULL)
          AND now() - a.xact_start > %s * interval '1 second'
        ORDER BY a.xact_start""", (older_than_s,)).fetchall()
    return [pid for (pid,) in rows]


def by_the_clock_in_a_cte(conn, older_than_s):
    """Round f2 (f2e), blind: ages by clock_timestamp(), not now(). It failed the fraction-of-a-second row at load
    30, listing a session 3.04 s old at 3.05 s: its clock had moved on while it ran (allowed: the age is true)."""
    return [r[0] for r in conn.execute("""
        WITH mine AS (
            SELECT a.pid, a.xact_start, coalesce(a.backend_xid::text, a.backend_xmin::text) AS pin
            FROM pg_stat_activity AS a
            WHERE a.datname = current_database() AND a.pid IS DISTINCT FROM pg_backend_pid())
        SELECT pid FROM mine
        WHERE pin IS NOT NULL AND extract(epoch FROM clock_timestamp() - xact_start) > %s
        ORDER BY xact_start ASC, pid""", [older_than_s])]


def by_the_clock_on_a_slow_machine(conn, older_than_s):
    """The same on a machine where the query starts 0.4 s after it is asked (a loaded CI box): every age it
    reads is 0.4 s older than the check's now()."""
    conn.execute("SELECT pg_sleep(0.4)")
    return by_the_clock_in_a_cte(conn, older_than_s)


@pytest.mark.parametrize("vacuum_blockers", [blockers_hint_spelled_out, ages_in_a_cte, filtered_in_python,
                                             joined_with_pg_database, by_the_clock_in_a_cte,
                                             by_the_clock_on_a_slow_machine], ids=lambda f: f.__name__)
def test_correct_vacuum_blockers_pass(vacuum_blockers):
    report = run_check("11.vacuum_blockers", vacuum_blockers=vacuum_blockers)
    assert report.status == "passed", report.render()
