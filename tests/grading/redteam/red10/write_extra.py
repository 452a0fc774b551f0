# The second batch of blind answers (written while the first ran): adversarial and precedence mistakes.
from pathlib import Path
A = {}
A["lab10_answers/in_progress_w10_set_dedup"] = ("wrong | time-average (two identical jobs counted once)", '''
def average_in_system(jobs, start, end):
    total = 0.0
    for arrived, left in set(jobs):
        total += max(0.0, min(left, end) - max(arrived, start))
    return total / (end - start)
''')
A["lab10_answers/in_progress_w11_assumes_sorted"] = ("wrong | outside (stops at the first job after the window: assumes sorted input)", '''
def average_in_system(jobs, start, end):
    total = 0.0
    for arrived, left in jobs:
        if arrived >= end:
            break
        total += max(0.0, min(left, end) - max(arrived, start))
    return total / (end - start)
''')
A["lab10_answers/pool_w9_percentile"] = ("wrong | fewest-meeting-target (95th percentile, not the mean)", '''
def workers_for(arrival_rate, service_time, target_wait):
    return queueing_theory.size_pool(arrival_rate, service_time, target_wait, percentile=0.95)
''')
A["lab11_answers/oldest_w11_precedence"] = ("wrong | who-waits (AND/OR precedence: a job running now left out)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 AND lease_token IS NULL GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["lab11_answers/oldest_w12_due_soon"] = ("wrong | not-yet-due (a job due within the next minute counted)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, GREATEST(0, EXTRACT(EPOCH FROM now() - min(due_at)))::float8
        FROM jobs WHERE run_at <= now() + interval '1 minute' OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
''')
A["lab11_answers/oldest_w13_having_positive"] = ("wrong | who-waits (a queue whose oldest is due exactly now left out)", '''
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue
        HAVING min(due_at) < now()""").fetchall()
    return dict(rows)
''')
A["lab11_answers/alerts_w11_empty_fast_path"] = ("wrong | dead-letters (no alert at all when the queues are empty)", '''
LIMIT_S = 120


def alerts(snapshot):
    if snapshot.depth == 0:
        return []
    out = [f"{v.queue} is late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
''')
A["lab11_answers/alerts_w12_demo_queues"] = ("wrong | late-queue (only the demo's queues looked at)", '''
LIMIT_S = 120


def alerts(snapshot):
    out = []
    for name in ("default", "newsletter"):
        view = snapshot.queue(name)
        if view.waiting_s > LIMIT_S:
            out.append(f"{name} is late ({view.waiting_s:.0f} s)")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
''')
A["lab11_answers/vacuum_w11_precedence"] = ("wrong | transaction-age / ours-only (OR precedence: every xmin holder, any age)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND backend_xid IS NOT NULL AND xact_start < now() - make_interval(secs => %s)
           OR backend_xmin IS NOT NULL AND pid <> pg_backend_pid()
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["lab11_answers/vacuum_w12_oldest_only"] = ("wrong | holds-back-vacuum (only the oldest one: LIMIT 1)", '''
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start LIMIT 1""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
''')
A["lab13_answers/keep_w11_six_pages"] = ("wrong | render-every-page (6 pages hard-coded: the check's invoice)", '''
def render_invoice(task):
    for page in range(6):
        task.in_progress()
        render_page(task.data["booking_id"], page)
''')
A["lab13_answers/keep_w12_sleep_instead"] = ("wrong | render-every-page (draws page 0, sleeps for the rest)", '''
import time as _t

def render_invoice(task):
    render_page(task.data["booking_id"], 0)
    for _ in range(task.data["pages"] - 1):
        task.in_progress()
        _t.sleep(PAGE_S)
''')
A["lab13_answers/keep_w13_last_page_twice"] = ("wrong | render-every-page / once (last page drawn twice)", '''
def render_invoice(task):
    pages = task.data["pages"]
    for page in range(pages):
        task.in_progress()
        render_page(task.data["booking_id"], page)
    render_page(task.data["booking_id"], pages - 1)   # make sure the last page is there
''')
A["lab13_answers/publish_w12_attempt_budget"] = ("wrong | give-up (an attempt budget from give_up_after_s: ignores how long each attempt took)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    attempts = max(1, int(give_up_after_s / 0.2))
    for attempt in range(attempts):
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if attempt == attempts - 1:
                raise
            time.sleep(0.2)
''')
A["lab13_answers/publish_w13_returns_seq"] = ("wrong | return-ack (returns the ack's seq)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id).seq
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.4)
''')
for name, (verdict, code) in A.items():
    Path(f"{name}.py").write_text(f"# {verdict}\n" + code.lstrip("\n"))
