"""Writes the blind round's answers: answers/labNN/<exercise>__<w|c><n>_<slug>.py (one notebook cell each)."""
from pathlib import Path

HERE = Path(__file__).parent
A = {}

# ---------------------------------------------------------------- 09.route
R = "def enqueue_job(conn, job_type, payload):\n"
A["09.route"] = {
 "w1_by_name": R + """    IMPACT[job_type]  # refuse unknown types
    q = URGENT if job_type.startswith("send_") and "newsletter" not in job_type else BULK
    if job_type == "sync_channel_manager":
        q = URGENT
    return queue.enqueue(conn, job_type, payload, queue=q)
""",
 "w2_strict_less": R + """    impact = IMPACT[job_type]
    q = URGENT if impact.late_after_s < URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=q)
""",
 "w3_hardcoded_types": R + """    if job_type not in IMPACT:
        raise ValueError(f"unclassified job type {job_type}")
    urgent = {"send_confirmation_email", "send_password_reset", "sync_channel_manager"}
    return queue.enqueue(conn, job_type, payload, queue=URGENT if job_type in urgent else BULK)
""",
 "w4_unknown_to_bulk": R + """    impact = IMPACT.get(job_type)
    if impact is not None and impact.late_after_s <= URGENT_WITHIN_S:
        return queue.enqueue(conn, job_type, payload, queue=URGENT)
    return queue.enqueue(conn, job_type, payload, queue=BULK)
""",
 "w5_store_then_check": R + """    job_id = queue.enqueue(conn, job_type, payload, queue=BULK)
    if IMPACT[job_type].late_after_s <= URGENT_WITHIN_S:
        conn.execute("UPDATE jobs SET queue = %s WHERE id = %s", [URGENT, job_id])
    return job_id
""",
 "w6_payload_tagged": R + """    impact = IMPACT[job_type]
    q = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, {**(payload or {}), "routed_to": q}, queue=q)
""",
 "w7_no_return": R + """    impact = IMPACT[job_type]
    q = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    queue.enqueue(conn, job_type, payload, queue=q)
""",
 "w8_minutes": R + """    # late_after_s compared in minutes against the 2-minute limit
    minutes = IMPACT[job_type].late_after_s / 60
    q = URGENT if minutes <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=q)
""",
 "w9_routes_frozen_at_import": """ROUTES = {t: (URGENT if i.late_after_s <= URGENT_WITHIN_S else BULK) for t, i in IMPACT.items()}


def enqueue_job(conn, job_type, payload):
    return queue.enqueue(conn, job_type, payload, queue=ROUTES[job_type])
""",
 "w10_swallow_unknown": R + """    try:
        impact = IMPACT[job_type]
    except KeyError:
        print(f"unknown job type {job_type}: not stored")
        return None
    q = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=q)
""",
 "c1_plain": R + """    impact = IMPACT[job_type]
    q = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=q)
""",
 "c2_tuple_index": R + """    if job_type not in IMPACT:
        raise ValueError(f"{job_type!r} has no business impact yet: decide who waits for it first")
    late = IMPACT[job_type].late_after_s
    return queue.enqueue(conn, job_type, payload, queue=(BULK, URGENT)[late <= URGENT_WITHIN_S])
""",
 "c3_alias_transaction": """from course.core.queue import enqueue as put


def enqueue_job(conn, job_type, payload):
    with conn.transaction():
        impact = IMPACT.get(job_type) or (_ for _ in ()).throw(KeyError(job_type))
        target = BULK if impact.late_after_s > URGENT_WITHIN_S else URGENT
        new_id = put(conn, job_type, payload, queue=target)
    return new_id
""",
}

# ---------------------------------------------------------------- 09.newsletter
N = "def enqueue_newsletter(conn, guest_ids):\n"
A["09.newsletter"] = {
 "w1_loop_autocommit": N + """    return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY)
            for g in guest_ids]
""",
 "w2_no_priority": N + """    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids])
""",
 "w3_priority_per_guest": N + """    ids = []
    with conn.transaction():
        for i, g in enumerate(guest_ids):
            # later guests a little lower, so the newsletter goes out in order
            ids.append(queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY - i))
    return ids
""",
 "w4_guest_id_text": N + """    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": str(g)} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
""",
 "w5_extra_payload": N + """    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g, "campaign": "friday"} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
""",
 "w6_sorted_guests": N + """    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in sorted(guest_ids)],
                              priority=NEWSLETTER_PRIORITY)
""",
 "w7_bulk_queue": N + """    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              queue="bulk", priority=NEWSLETTER_PRIORITY)
""",
 "w8_none_for_empty": N + """    if not guest_ids:
        return None
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
""",
 "w9_chunks_committed": N + """    ids = []
    guest_ids = list(guest_ids)
    for at in range(0, len(guest_ids), 500):   # batches of 500, each its own statement
        ids += queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids[at:at + 500]],
                                  priority=NEWSLETTER_PRIORITY)
    return ids
""",
 "w10_dedup_set": N + """    unique = list(dict.fromkeys(guest_ids))  # a guest gets one newsletter
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in unique],
                              priority=NEWSLETTER_PRIORITY)
""",
 "c1_enqueue_many": N + """    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
""",
 "c2_loop_in_transaction": N + """    ids = []
    with conn.transaction():
        for guest in guest_ids:
            ids.append(queue.enqueue(conn, "send_newsletter", {"guest_id": guest}, queue="default", priority=-1))
    return ids
""",
 "c3_generator_tuple_lowest": """from course.core.queue import enqueue_many as store_all


def enqueue_newsletter(conn, guest_ids):
    payloads = ({"guest_id": g} for g in guest_ids)
    return tuple(store_all(conn, "send_newsletter", payloads, priority=-32768, queue="default"))
""",
}

# ---------------------------------------------------------------- 10.in_progress
I = "def average_in_system(jobs, start, end):\n"
A["10.in_progress"] = {
 "w1_head_count": I + """    return sum(1 for a, l in jobs if a < end and l > start) / (end - start)
""",
 "w2_mean_stay": I + """    stays = [l - a for a, l in jobs if a < end and l > start]
    return sum(stays) / len(stays) if stays else 0.0
""",
 "w3_no_clip_start": I + """    total = sum(min(l, end) - a for a, l in jobs if a < end and l > start)
    return total / (end - start)
""",
 "w4_no_clip_end": I + """    total = sum(l - max(a, start) for a, l in jobs if a < end and l > start)
    return total / (end - start)
""",
 "w5_outside_negative": I + """    return sum(min(l, end) - max(a, start) for a, l in jobs) / (end - start)
""",
 "w6_integer_sampling": I + """    # count who is there at each whole second
    seconds = range(int(start), int(end))
    return sum(sum(1 for a, l in jobs if a <= t < l) for t in seconds) / len(seconds)
""",
 "w7_span_of_jobs": I + """    inside = [(max(a, start), min(l, end)) for a, l in jobs if a < end and l > start]
    if not inside:
        return 0.0
    span = max(l for _, l in inside) - min(a for a, _ in inside)
    return sum(l - a for a, l in inside) / span
""",
 "w8_floor_division": I + """    total = sum(max(0, min(l, end) - max(a, start)) for a, l in jobs)
    return total // (end - start)
""",
 "w9_coarse_sampling": I + """    steps = 50
    dt = (end - start) / steps
    return sum(sum(1 for a, l in jobs if a <= start + k * dt < l) for k in range(steps)) / steps
""",
 "c1_clipped_overlap": I + """    return sum(max(0.0, min(l, end) - max(a, start)) for a, l in jobs) / (end - start)
""",
 "c2_event_sweep": I + """    events = []
    for arrived, left in jobs:
        a, l = max(arrived, start), min(left, end)
        if a < l:
            events += [(a, +1), (l, -1)]
    events.sort()
    area, count, last = 0.0, 0, start
    for t, step in events:
        area += count * (t - last)
        count += step
        last = t
    return area / (end - start)
""",
 "c3_fsum_loop": """import math


def average_in_system(jobs, start, end):
    window = end - start
    parts = []
    for arrived, left in jobs:
        if left <= start or arrived >= end:
            continue
        parts.append(min(left, end) - max(arrived, start))
    return math.fsum(parts) / window
""",
}

# ---------------------------------------------------------------- 10.pool
P = "def workers_for(arrival_rate, service_time, target_wait):\n"
A["10.pool"] = {
 "w1_rule_of_thumb": "import math\n\n\n" + P + """    return math.ceil(arrival_rate * service_time * 1.1)
""",
 "w2_start_at_ceil": "import math\n\n\n" + P + """    c = max(1, math.ceil(arrival_rate * service_time))
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c
""",
 "w3_strict_less": "import math\n\n\n" + P + """    c = math.floor(arrival_rate * service_time) + 1
    while not erlang_c(arrival_rate, service_time, c).mean_wait < target_wait:
        c += 1
    return c
""",
 "w4_off_by_one": "import math\n\n\n" + P + """    c = math.floor(arrival_rate * service_time) + 1
    while True:
        c += 1
        if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
            return c
""",
 "w5_total_time": "import math\n\n\n" + P + """    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).mean_wait + service_time > target_wait:
        c += 1
    return c
""",
 "w6_float": "import math\n\n\n" + P + """    c = math.floor(arrival_rate * service_time) + 1.0
    while erlang_c(arrival_rate, service_time, int(c)).mean_wait > target_wait:
        c += 1
    return c
""",
 "w7_capped_search": "import math\n\n\n" + P + """    for c in range(math.floor(arrival_rate * service_time) + 1, 100):
        if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
            return c
    return 100
""",
 "w8_at_least_two": "import math\n\n\n" + P + """    c = max(2, math.floor(arrival_rate * service_time) + 1)   # never fewer than two workers
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c
""",
 "w9_probability": "import math\n\n\n" + P + """    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).probability_of_waiting * service_time > target_wait:
        c += 1
    return c
""",
 "c1_loop": "import math\n\n\n" + P + """    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c
""",
 "c2_try_from_one": "import itertools\n\nfrom course.errors import InvalidArgument\n\n\n" + P + """    for c in itertools.count(1):
        try:
            if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
                return c
        except InvalidArgument:
            continue   # rho >= 1: cannot do
""",
 "c3_bisect": "import math\n\n\n" + P + """    def ok(c):
        return erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait
    low = math.floor(arrival_rate * service_time) + 1   # fewest with rho < 1
    if ok(low):
        return low
    high = low * 2
    while not ok(high):
        low, high = high, high * 2
    while high - low > 1:          # ok(high), not ok(low)
        mid = (low + high) // 2
        if ok(mid):
            high = mid
        else:
            low = mid
    return int(high)
""",
}

# ---------------------------------------------------------------- 11.oldest_waiting
O = "def oldest_waiting(conn):\n"
def ow(where, expr="extract(epoch FROM now() - min(due_at))"):
    return O + f"""    rows = conn.execute(\"\"\"
        SELECT queue, {expr} FROM jobs
        WHERE {where}
        GROUP BY queue\"\"\").fetchall()
    return {{q: float(s) for q, s in rows}}
"""
A["11.oldest_waiting"] = {
 "w1_from_run_at": ow("attempts > 0 OR run_at <= now()", "extract(epoch FROM now() - min(run_at))"),
 "w2_from_created_at": ow("attempts > 0 OR run_at <= now()", "extract(epoch FROM now() - min(created_at))"),
 "w3_only_due_now": ow("run_at <= now()"),
 "w4_misses_retries": ow("run_at <= now() OR lease_token IS NOT NULL"),
 "w5_minutes": ow("attempts > 0 OR run_at <= now()", "extract(epoch FROM now() - min(due_at)) / 60"),
 "w6_one_for_all": O + """    [age] = conn.execute("SELECT extract(epoch FROM now() - min(due_at)) FROM jobs "
                         "WHERE attempts > 0 OR run_at <= now()").fetchone()
    queues = [q for (q,) in conn.execute("SELECT DISTINCT queue FROM jobs WHERE attempts > 0 OR run_at <= now()")]
    return {q: float(age) for q in queues}
""",
 "w7_due_strictly_past": ow("attempts > 0 OR run_at < now()"),
 "w8_zero_for_idle_queues": O + """    rows = conn.execute(\"\"\"
        SELECT queue, coalesce(extract(epoch FROM now() - min(due_at) FILTER (WHERE attempts > 0 OR run_at <= now())), 0)
        FROM jobs GROUP BY queue\"\"\").fetchall()
    return {q: float(s) for q, s in rows}
""",
 "w9_no_filter": ow("true"),
 "w10_attempts_only": ow("attempts > 0 OR lease_token IS NULL AND run_at <= now() AND attempts = 0 AND due_at < now() - interval '1 second'"),
 "c1_attempts_or_due": ow("attempts > 0 OR run_at <= now()"),
 "c2_due_at_past": ow("due_at <= now()"),
 "c3_python_side": """import datetime


def oldest_waiting(conn):
    now, = conn.execute("SELECT now()").fetchone()
    oldest = {}
    for q, due_at, run_at, attempts, token in conn.execute(
            "SELECT queue, due_at, run_at, attempts, lease_token FROM jobs"):
        waits = token is not None or attempts >= 1 or run_at <= now
        if waits and (q not in oldest or due_at < oldest[q]):
            oldest[q] = due_at
    return {q: (now - due).total_seconds() for q, due in oldest.items()}
""",
}

# ---------------------------------------------------------------- 11.alerts
L = "LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old\n\n\ndef alerts(snapshot):\n"
A["11.alerts"] = {
 "w1_at_least": L + """    out = [f"queue {v.queue}: oldest job {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s >= LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} job(s) in the dead-letter table")
    return out
""",
 "w2_worst_only": L + """    out = []
    if snapshot.queues:
        worst = max(snapshot.queues, key=lambda v: v.waiting_s)
        if worst.waiting_s > LIMIT_S:
            out.append(f"queue {worst.queue} is late: {worst.waiting_s:.0f} s")
    if snapshot.dead_letters:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
""",
 "w3_depth_too": L + """    out = [f"queue {v.queue} late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    out += [f"queue {v.queue} deep: {v.depth} jobs" for v in snapshot.queues if v.depth > 1000]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
""",
 "w4_no_count": L + """    out = [f"queue {v.queue} late" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append("there are jobs in the dead-letter table")
    return out
""",
 "w5_dead_tuples": L + """    out = [f"queue {v.queue} late" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_tuples > 0:
        out.append(f"{snapshot.dead_tuples} dead")
    return out
""",
 "w6_tuples_not_strings": L + """    out = [(v.queue, v.waiting_s) for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(("dead letters", snapshot.dead_letters))
    return out
""",
 "w7_milliseconds": L + """    out = [f"queue {v.queue} late" for v in snapshot.queues if v.waiting_s * 1000 > LIMIT_S * 1000 * 60]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
""",
 "w8_no_queue_name": L + """    out = []
    if any(v.waiting_s > LIMIT_S for v in snapshot.queues):
        out.append("a queue's oldest job is over 2 minutes old")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
""",
 "w9_one_per_dead_letter": L + """    out = [f"queue {v.queue} late" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    out += [f"dead letter {n + 1} of {snapshot.dead_letters}" for n in range(snapshot.dead_letters)]
    return out
""",
 "w10_ready_only": L + """    # a queue with jobs ready to run whose oldest is late
    out = [f"queue {v.queue} late" for v in snapshot.queues if v.ready and v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
""",
 "c1_loop": L + """    messages = []
    for view in snapshot.queues:
        if view.waiting_s > LIMIT_S:
            messages.append(f"queue {view.queue!r}: oldest job waiting {view.waiting_s:.0f} s (limit {LIMIT_S} s)")
    if snapshot.dead_letters > 0:
        messages.append(f"{snapshot.dead_letters} job(s) in the dead-letter table")
    return messages
""",
 "c2_sorted_comprehension": L + """    late = sorted((v for v in snapshot.queues if not v.waiting_s <= LIMIT_S), key=lambda v: v.queue)
    dead = [f"dead letters: {snapshot.dead_letters}"] if snapshot.dead_letters else []
    return [f"{v.queue} is late by {v.waiting_s - LIMIT_S:.1f} s" for v in late] + dead
""",
 "c3_generator": L + """    def found():
        yield from (f"LATE {v.queue} {v.waiting_s / 60:.1f} min" for v in snapshot.queues if v.waiting_s - LIMIT_S > 0)
        if snapshot.dead_letters >= 1:
            yield "DEAD LETTERS %d" % snapshot.dead_letters
    return list(found())
""",
}

# ---------------------------------------------------------------- 11.vacuum_blockers
V = "def vacuum_blockers(conn, older_than_s):\n"
def vb(where, order="xact_start"):
    return V + f"""    rows = conn.execute(\"\"\"
        SELECT pid FROM pg_stat_activity
        WHERE {where}
        ORDER BY {order}\"\"\", {{"s": older_than_s}}).fetchall()
    return [pid for (pid,) in rows]
"""
OK_DB = "datname = current_database() AND pid <> pg_backend_pid()"
A["11.vacuum_blockers"] = {
 "w1_query_start": vb(f"{OK_DB} AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND query_start < now() - make_interval(secs => %(s)s)", "query_start"),
 "w2_xmin_only": vb(f"{OK_DB} AND backend_xmin IS NOT NULL AND xact_start < now() - make_interval(secs => %(s)s)"),
 "w3_idle_in_tx_state": vb(f"{OK_DB} AND state = 'idle in transaction' AND xact_start < now() - make_interval(secs => %(s)s)"),
 "w4_all_databases": vb("pid <> pg_backend_pid() AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < now() - make_interval(secs => %(s)s)"),
 "w5_newest_first": vb(f"{OK_DB} AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < now() - make_interval(secs => %(s)s)", "xact_start DESC"),
 "w6_no_order": vb(f"{OK_DB} AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < now() - make_interval(secs => %(s)s)", "pid"),
 "w7_hardcoded_age": vb(f"{OK_DB} AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < now() - interval '2 seconds' AND %(s)s IS NOT NULL"),
 "w8_minutes": vb(f"{OK_DB} AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < now() - make_interval(mins => %(s)s)"),
 "w11_minutes_cast": vb(f"{OK_DB} AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < now() - %(s)s * interval '1 minute'"),
 "w9_not_idle": vb(f"{OK_DB} AND state <> 'idle' AND xact_start < now() - make_interval(secs => %(s)s)"),
 "w10_own_session_kept": vb("datname = current_database() AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start <= now() - make_interval(secs => %(s)s)"),
 "c1_plain": vb(f"{OK_DB} AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < now() - make_interval(secs => %(s)s)"),
 "c2_python_side": V + """    me, now = conn.execute("SELECT pg_backend_pid(), now()").fetchone()
    rows = conn.execute("SELECT pid, xact_start, backend_xmin, backend_xid FROM pg_stat_activity "
                        "WHERE datname = current_database()").fetchall()
    found = [(start, pid) for pid, start, xmin, xid in rows
             if pid != me and start is not None and (xmin is not None or xid is not None)
             and (now - start).total_seconds() > older_than_s]
    return [pid for _, pid in sorted(found)]
""",
 "c3_cte_coalesce": V + """    return [r[0] for r in conn.execute(\"\"\"
        WITH mine AS (
            SELECT a.pid, a.xact_start, coalesce(a.backend_xid::text, a.backend_xmin::text) AS pin
            FROM pg_stat_activity AS a
            WHERE a.datname = current_database() AND a.pid IS DISTINCT FROM pg_backend_pid())
        SELECT pid FROM mine
        WHERE pin IS NOT NULL AND extract(epoch FROM clock_timestamp() - xact_start) > %s
        ORDER BY xact_start ASC, pid\"\"\", [older_than_s])]
""",
}

LAB = {"09": ["09.route", "09.newsletter"], "10": ["10.in_progress", "10.pool"],
       "11": ["11.oldest_waiting", "11.alerts", "11.vacuum_blockers"]}
if __name__ == "__main__":
    for lab, exercises in LAB.items():
        folder = HERE / "answers" / f"lab{lab}"
        folder.mkdir(exist_ok=True)
        for ex in exercises:
            for name, code in A[ex].items():
                (folder / f"{ex.split('.')[1]}__{name}.py").write_text(code)
    print(sum(len(v) for v in A.values()), "answers")
