from pathlib import Path
A = {}
# ---- 11.oldest_waiting
A["oldest_c1_where_filter"] = ("correct", '''
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue""").fetchall()
    return {q: float(s) for q, s in rows}
''')
A["oldest_c2_python_side"] = ("correct", '''
def oldest_waiting(conn):
    now, = conn.execute("SELECT now()").fetchone()
    rows = conn.execute("SELECT queue, due_at, run_at, attempts, lease_token FROM jobs").fetchall()
    oldest = {}
    for queue_name, due_at, run_at, attempts, lease_token in rows:
        planned_for_later = run_at > now and attempts == 0 and lease_token is None
        if planned_for_later:
            continue
        if queue_name not in oldest or due_at < oldest[queue_name]:
            oldest[queue_name] = due_at
    return {q: (now - due).total_seconds() for q, due in oldest.items()}
''')
A["oldest_c3_cte_not"] = ("correct", '''
def oldest_waiting(conn):
    query = """
    WITH waited_for AS (
        SELECT j.queue AS q, j.due_at AS due
        FROM jobs AS j
        WHERE NOT (j.run_at > now() AND j.attempts = 0)
    )
    SELECT q, extract(epoch from now())::float8 - extract(epoch from min(due))::float8 AS secs
    FROM waited_for GROUP BY q
    """
    return {row[0]: row[1] for row in conn.execute(query)}
''')
A["oldest_w1_from_run_at"] = ("wrong | from-due-at (measures from run_at)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(run_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["oldest_w2_from_created_at"] = ("wrong | from-due-at (measures from created_at)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(created_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["oldest_w3_ready_only"] = ("wrong | who-waits (ready jobs only: no running, no retry)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() AND lease_token IS NULL GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["oldest_w4_strict_now"] = ("wrong | who-waits (due exactly now left out)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at < now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["oldest_w5_no_retry"] = ("wrong | who-waits (a job waiting for its retry left out)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() OR lease_token IS NOT NULL GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["oldest_w6_timedelta"] = ("wrong | oldest-in-seconds (an interval, not seconds)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, now() - min(due_at)
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["oldest_w7_newest"] = ("wrong | oldest-in-seconds (the newest job, max(due_at))", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - max(due_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["oldest_w8_no_filter"] = ("wrong | not-yet-due (every job counted, planned ones too)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, GREATEST(0, EXTRACT(EPOCH FROM now() - min(due_at)))::float8
        FROM jobs GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["oldest_w9_whole_seconds"] = ("wrong | oldest-in-seconds (rounded down to whole seconds)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM date_trunc('second', now() - min(due_at)))::int
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["oldest_w10_default_queue_only"] = ("wrong | per-queue (only the queues seen in the demo)", '''
def oldest_waiting(conn):
    out = {}
    for q in ("default", "newsletter"):
        row = conn.execute("""
            SELECT EXTRACT(EPOCH FROM now() - min(due_at))::float8
            FROM jobs WHERE queue = %s AND (run_at <= now() OR attempts > 0)""", [q]).fetchone()
        if row[0] is not None:
            out[q] = row[0]
    return out
''')
# ---- 11.alerts
A["alerts_c1_plain"] = ("correct", '''
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    messages = []
    for view in snapshot.queues:
        if view.waiting_s > LIMIT_S:
            messages.append(f"queue {view.queue} is late: oldest job waited {view.waiting_s:.0f} s")
    if snapshot.dead_letters > 0:
        messages.append(f"{snapshot.dead_letters} jobs in the dead-letter table")
    return messages
''')
A["alerts_c2_course_conditions"] = ("correct", '''
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    rules = (monitoring.OldestJobOver(LIMIT_S), monitoring.DeadLetters())
    return [alert.message for rule in rules for alert in rule.check(snapshot)]
''')
A["alerts_c3_comprehension"] = ("correct", '''
LIMIT_S = 120


def alerts(snapshot):
    late = [f"{v.queue!r}: {v.waiting_s - LIMIT_S:.1f} s over the limit" for v in snapshot.queues if not v.waiting_s <= LIMIT_S]
    dead = [] if not snapshot.dead_letters else [f"dead letters: {snapshot.dead_letters:,}"]
    return late + dead
''')
A["alerts_w1_at_limit"] = ("wrong | more-than (>=)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s >= LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
''')
A["alerts_w2_worst_only"] = ("wrong | late-queue (only the worst queue)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = []
    if snapshot.queues:
        worst = max(snapshot.queues, key=lambda v: v.waiting_s)
        if worst.waiting_s > LIMIT_S:
            out.append(f"{worst.queue} is late: {worst.waiting_s:.0f} s")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
''')
A["alerts_w3_dead_no_count"] = ("wrong | dead-letters (message does not say how many)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append("there are jobs in the dead-letter table")
    return out
''')
A["alerts_w4_depth_too"] = ("wrong | no-others (alerts on depth too)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    out += [f"{v.queue} has {v.depth} jobs queued" for v in snapshot.queues if v.depth > 1000]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
''')
A["alerts_w5_dead_tuples"] = ("wrong | no-others / dead-letters (dead tuples taken for dead letters)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    dead = snapshot.dead_letters + snapshot.dead_tuples
    if dead > 0:
        out.append(f"{dead} dead jobs")
    return out
''')
A["alerts_w6_one_string"] = ("wrong | strings (one joined string, not a list)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return "\\n".join(out)
''')
A["alerts_w7_no_queue_name"] = ("wrong | late-queue (message does not name the queue)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = [f"a queue is late: oldest job {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
''')
A["alerts_w8_dead_over_one"] = ("wrong | dead-letters (one dead letter does not alert)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 1:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
''')
A["alerts_w9_minutes"] = ("wrong | late-queue (compares minutes with LIMIT_S's seconds... rounds to whole minutes)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late ({v.waiting_s // 60:.0f} min)" for v in snapshot.queues
           if v.waiting_s // 60 > LIMIT_S // 60]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
''')
A["alerts_w10_dead_per_queue"] = ("wrong | dead-letters (one message per queue, not one)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = []
    for v in snapshot.queues:
        if v.waiting_s > LIMIT_S:
            out.append(f"{v.queue} is late ({v.waiting_s:.0f} s)")
        if snapshot.dead_letters > 0:
            out.append(f"{snapshot.dead_letters} dead letters ({v.queue})")
    return out
''')
# ---- 11.vacuum_blockers
A["vacuum_c1_plain"] = ("correct", '''
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["vacuum_c2_cte_epoch"] = ("correct", '''
def vacuum_blockers(conn, older_than_s):
    q = """
    WITH sessions AS (
        SELECT a.pid, a.xact_start, extract(epoch FROM now() - a.xact_start) AS age_s,
               coalesce(a.backend_xmin::text, a.backend_xid::text) AS pins
        FROM pg_stat_activity a
        WHERE a.datname = current_database()
    )
    SELECT pid FROM sessions
    WHERE pins IS NOT NULL AND age_s > %(age)s AND pid != pg_backend_pid()
    ORDER BY xact_start ASC, pid
    """
    return [pid for (pid,) in conn.execute(q, {"age": older_than_s})]
''')
A["vacuum_c3_python_filter"] = ("correct", '''
def vacuum_blockers(conn, older_than_s):
    me, now = conn.execute("SELECT pg_backend_pid(), now()").fetchone()
    rows = conn.execute("""SELECT pid, xact_start, backend_xmin, backend_xid FROM pg_stat_activity
                           WHERE datname = current_database()""").fetchall()
    found = [(xact_start, pid) for pid, xact_start, xmin, xid in rows
             if pid != me and xact_start is not None and (xmin is not None or xid is not None)
             and (now - xact_start).total_seconds() > older_than_s]
    return [pid for _, pid in sorted(found)]
''')
A["vacuum_w1_query_start"] = ("wrong | transaction-age (query_start)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND query_start < now() - make_interval(secs => %s)
        ORDER BY query_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["vacuum_w2_xmin_only"] = ("wrong | holds-back-vacuum (a writer with only backend_xid missed)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND backend_xmin IS NOT NULL
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["vacuum_w3_idle_in_tx_only"] = ("wrong | holds-back-vacuum (only idle-in-transaction sessions; a long active query missed)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND state = 'idle in transaction'
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["vacuum_w4_keeps_own"] = ("wrong | ours-only (own session not left out)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["vacuum_w5_newest_first"] = ("wrong | oldest-first (DESC)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start DESC""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["vacuum_w6_all_databases"] = ("wrong | ours-only (other databases included)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["vacuum_w7_minutes"] = ("wrong | transaction-age (older_than_s taken as minutes)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(mins => %s)
        ORDER BY xact_start""", [int(older_than_s)]).fetchall()
    return [r[0] for r in rows]
''')
A["vacuum_w8_every_idle_tx"] = ("wrong | holds-back-vacuum (every idle-in-transaction session, read-only ones too)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (state = 'idle in transaction' OR backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["vacuum_w9_rows_not_pids"] = ("wrong | pids (returns rows of (pid, age))", '''
def vacuum_blockers(conn, older_than_s):
    return conn.execute("""
        SELECT pid, now() - xact_start FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
''')
A["vacuum_w10_clock_vs_now"] = ("wrong | transaction-age (integer seconds: 2.5 s treated as 2)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND extract(epoch FROM now() - xact_start)::int > %s
        ORDER BY xact_start""", [int(older_than_s)]).fetchall()
    return [r[0] for r in rows]
''')
for name, (verdict, code) in A.items():
    Path(f"lab11_answers/{name}.py").write_text(f"# {verdict}\n" + code.lstrip("\n"))
