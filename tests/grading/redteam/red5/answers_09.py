R, N = "09.route", "09.newsletter"
ANSWERS = {
# ---------------- 09.route: wrong
"route_w01_strict_less": (R, "wrong", "by-impact (< instead of <=: 120 s goes to bulk)", '''
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s < URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
'''),
"route_w02_by_name": (R, "wrong", "by-impact (from the name)", '''
def enqueue_job(conn, job_type, payload):
    if job_type not in IMPACT:
        raise ValueError(f"unclassified job type {job_type!r}")
    urgent = any(word in job_type for word in ("confirmation", "password", "sync", "channel"))
    return queue.enqueue(conn, job_type, payload, queue=URGENT if urgent else BULK)
'''),
"route_w03_unknown_to_bulk": (R, "wrong", "refuse-unknown (unknown goes to bulk)", '''
def enqueue_job(conn, job_type, payload):
    impact = IMPACT.get(job_type)
    queue_name = URGENT if impact is not None and impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
'''),
"route_w04_hardcoded_types": (R, "wrong", "by-impact (a type added later)", '''
ROUTES = {
    "send_confirmation_email": URGENT,
    "send_password_reset": URGENT,
    "sync_channel_manager": URGENT,
}

def enqueue_job(conn, job_type, payload):
    if job_type not in IMPACT:
        raise ValueError(job_type)
    return queue.enqueue(conn, job_type, payload, queue=ROUTES.get(job_type, BULK))
'''),
"route_w05_enqueue_then_refuse": (R, "wrong", "refuse-unknown (nothing is stored)", '''
def enqueue_job(conn, job_type, payload):
    job_id = queue.enqueue(conn, job_type, payload, queue=BULK)
    impact = IMPACT[job_type]
    if impact.late_after_s <= URGENT_WITHIN_S:
        conn.execute("UPDATE jobs SET queue = %s WHERE id = %s", [URGENT, job_id])
    return job_id
'''),
"route_w06_extra_payload": (R, "wrong", "store-as-given (payload changed)", '''
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, {**payload, "routed_to": queue_name}, queue=queue_name)
'''),
"route_w07_returns_queue": (R, "wrong", "return-id", '''
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    queue.enqueue(conn, job_type, payload, queue=queue_name)
    return queue_name
'''),
"route_w08_snapshot_at_definition": (R, "wrong", "by-impact (IMPACT read once, at definition)", '''
URGENT_TYPES = {name for name, impact in IMPACT.items() if impact.late_after_s <= URGENT_WITHIN_S}
KNOWN = set(IMPACT)

def enqueue_job(conn, job_type, payload):
    if job_type not in KNOWN:
        raise KeyError(job_type)
    return queue.enqueue(conn, job_type, payload, queue=URGENT if job_type in URGENT_TYPES else BULK)
'''),
"route_w09_wrong_exception": (R, "wrong", "refuse-unknown (not a ValueError or KeyError)", '''
def enqueue_job(conn, job_type, payload):
    if job_type not in IMPACT:
        raise LookupError(f"nobody has classified {job_type!r}")
    queue_name = URGENT if IMPACT[job_type].late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
'''),
"route_w10_lowercases_type": (R, "wrong", "store-as-given (type lowercased)", '''
def enqueue_job(conn, job_type, payload):
    job_type = job_type.strip().lower()
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
'''),
"route_w11_enqueues_twice": (R, "wrong", "store-as-given (two jobs: a copy for the bulk queue)", '''
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    if impact.late_after_s <= URGENT_WITHIN_S:
        queue.enqueue(conn, job_type, payload, queue=BULK)      # a backup copy, in case urgent is busy
        return queue.enqueue(conn, job_type, payload, queue=URGENT)
    return queue.enqueue(conn, job_type, payload, queue=BULK)
'''),
"route_w12_minutes_rounding": (R, "wrong", "by-impact (minutes rounded: 150 s counts as 2 minutes)", '''
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    queue_name = URGENT if round(impact.late_after_s / 60) <= URGENT_WITHIN_S // 60 else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
'''),
"route_w13_priority_too": (R, "wrong", "store-as-given (arguable: adds a priority)", '''
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    if impact.late_after_s <= URGENT_WITHIN_S:
        return queue.enqueue(conn, job_type, payload, queue=URGENT, priority=10)
    return queue.enqueue(conn, job_type, payload, queue=BULK, priority=-10)
'''),
"route_w14_default_queue_for_bulk": (R, "wrong", "by-impact (the rest to 'default', not BULK)", '''
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    if impact.late_after_s <= URGENT_WITHIN_S:
        return queue.enqueue(conn, job_type, payload, queue=URGENT)
    return queue.enqueue(conn, job_type, payload)
'''),
# ---------------- 09.route: correct
"route_c01_hint": (R, "correct", "correct (hint 3 word for word)", '''
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
'''),
"route_c02_get_and_raise": (R, "correct", "correct (get, ValueError, tuple index)", '''
def enqueue_job(conn, job_type, payload):
    impact = IMPACT.get(job_type)
    if impact is None:
        raise ValueError(f"{job_type!r} is not in IMPACT: decide who waits for it first. Nothing was stored.")
    target = (URGENT, BULK)[impact.late_after_s > URGENT_WITHIN_S]
    return queue.enqueue(conn, job_type, payload, queue=target)
'''),
"route_c03_transaction_helper": (R, "correct", "correct (helper function, explicit transaction)", '''
def queue_for(job_type):
    try:
        late_after_s = IMPACT[job_type].late_after_s
    except KeyError:
        raise KeyError(f"unclassified job type: {job_type}") from None
    return BULK if late_after_s > URGENT_WITHIN_S else URGENT

def enqueue_job(conn, job_type, payload):
    target = queue_for(job_type)
    with conn.transaction():
        job_id = queue.enqueue(conn, job_type, payload, queue=target)
    return job_id
'''),
"route_c04_module_alias": (R, "correct", "correct (module aliases, keyword args)", '''
from course.programs import newsletter as nl
from course.core import queue as q

def enqueue_job(conn, job_type, payload):
    seconds = nl.IMPACT[job_type].late_after_s
    return q.enqueue(conn, type=job_type, payload=payload, queue=nl.URGENT if seconds <= nl.URGENT_WITHIN_S else nl.BULK)
'''),
# ---------------- 09.newsletter: wrong
"newsletter_w01_one_commit_each": (N, "wrong", "one-transaction (autocommit: a commit per job)", '''
def enqueue_newsletter(conn, guest_ids):
    return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY) for g in guest_ids]
'''),
"newsletter_w02_default_priority": (N, "wrong", "below-default (priority 0)", '''
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids])
'''),
"newsletter_w03_positive_priority": (N, "wrong", "below-default (+10: sign confused)", '''
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=abs(NEWSLETTER_PRIORITY))
'''),
"newsletter_w04_falling_priorities": (N, "wrong", "own-order (a priority per job)", '''
def enqueue_newsletter(conn, guest_ids):
    with conn.transaction():
        return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY - n)
                for n, g in enumerate(guest_ids)]
'''),
"newsletter_w05_extra_payload": (N, "wrong", "one-job-per-guest (payload has more than the guest id)", '''
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g, "campaign": "friday"} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
'''),
"newsletter_w06_sorted_guests": (N, "wrong", "return-ids (guests sorted: not their order)", '''
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in sorted(guest_ids)],
                              priority=NEWSLETTER_PRIORITY)
'''),
"newsletter_w07_bulk_queue": (N, "wrong", "one-queue (the bulk queue)", '''
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              queue=BULK, priority=NEWSLETTER_PRIORITY)
'''),
"newsletter_w08_none_for_empty": (N, "wrong", "return-ids ([] for no guests)", '''
def enqueue_newsletter(conn, guest_ids):
    if not guest_ids:
        return None
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
'''),
"newsletter_w09_chunks_of_1000": (N, "wrong", "one-transaction (a commit per 1,000)", '''
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    ids = []
    for start in range(0, len(guest_ids), 1000):
        ids += queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids[start:start + 1000]],
                                  priority=NEWSLETTER_PRIORITY)
    return ids
'''),
"newsletter_w10_guest_id_text": (N, "wrong", "one-job-per-guest (guest id as text)", '''
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": str(g)} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
'''),
"newsletter_w11_wrong_type": (N, "wrong", "one-job-per-guest (type 'newsletter')", '''
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "newsletter", [{"guest_id": g} for g in guest_ids], priority=NEWSLETTER_PRIORITY)
'''),
"newsletter_w12_dedup": (N, "wrong", "one-job-per-guest / return-ids (arguable: a guest listed twice gets one job)", '''
def enqueue_newsletter(conn, guest_ids):
    unique = list(dict.fromkeys(guest_ids))
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in unique], priority=NEWSLETTER_PRIORITY)
'''),
"newsletter_w13_ids_descending": (N, "wrong", "return-ids (sorted descending)", '''
def enqueue_newsletter(conn, guest_ids):
    ids = queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids], priority=NEWSLETTER_PRIORITY)
    return sorted(ids, reverse=True)
'''),
"newsletter_w14_first_guest_default": (N, "wrong", "own-order / below-default (the first job at 0, 'to get it going')", '''
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    if not guest_ids:
        return []
    with conn.transaction():
        first = queue.enqueue(conn, "send_newsletter", {"guest_id": guest_ids[0]})
        rest = queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids[1:]],
                                  priority=NEWSLETTER_PRIORITY)
    return [first, *rest]
'''),
"newsletter_w15_unique_keys": (N, "wrong", "one-job-per-guest (unique key per guest: a second newsletter to the same guest is dropped)", '''
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY, unique_keys=[f"newsletter:{g}" for g in guest_ids])
'''),
"newsletter_w16_small_lists_only": (N, "wrong", "one-transaction (more than 500: one commit each)", '''
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    if len(guest_ids) <= 500:
        return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                                  priority=NEWSLETTER_PRIORITY)
    return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY, notify=False)
            for g in guest_ids]
'''),
# ---------------- 09.newsletter: correct
"newsletter_c01_hint": (N, "correct", "correct (hint 3 word for word)", '''
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids], priority=NEWSLETTER_PRIORITY)
'''),
"newsletter_c02_loop_in_transaction": (N, "correct", "correct (a loop of enqueue in one transaction)", '''
def enqueue_newsletter(conn, guest_ids):
    ids = []
    with conn.transaction():
        for guest in guest_ids:
            ids.append(queue.enqueue(conn, "send_newsletter", {"guest_id": guest}, queue="default",
                                     priority=NEWSLETTER_PRIORITY, notify=False))
    return ids
'''),
"newsletter_c03_priority_minus_one": (N, "correct", "correct (priority -1, a tuple, generator payloads)", '''
def enqueue_newsletter(conn, guest_ids):
    payloads = ({"guest_id": guest_id} for guest_id in guest_ids)
    return tuple(queue.enqueue_many(conn, type="send_newsletter", payloads=payloads, queue="default", priority=-1))
'''),
"newsletter_c04_explicit_begin": (N, "correct", "correct (BEGIN/COMMIT by hand)", '''
def enqueue_newsletter(conn, guest_ids):
    conn.execute("BEGIN")
    try:
        ids = queue.enqueue_many(conn, "send_newsletter", [dict(guest_id=g) for g in guest_ids],
                                 priority=NEWSLETTER_PRIORITY)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return list(ids)
'''),
}
