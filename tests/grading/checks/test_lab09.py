"""Lab 09's checks fail plausible wrong answers, for the reason a learner needs to hear: each breaks one rule
the statement states (or, where noted, two by its nature), and the test asserts exactly which checks fail."""

import pytest

from course.core import queue
from course.grading import run_check
from course.programs.newsletter import BULK, IMPACT, NEWSLETTER_PRIORITY, URGENT, URGENT_WITHIN_S

from .wrong_answers import failed, fails_exactly

BY_IMPACT = "each job type goes to the queue its impact calls for"
ADDED = "a type added to IMPACT later is routed by its impact"
REFUSED = "a job type missing from IMPACT is refused"
AS_GIVEN = "type and payload are stored as given"
RETURN_ID = "returns the id of the job it stored"


# -- 09.route ------------------------------------------------------------------------------------


def route_by_name(conn, job_type, payload):
    # "emails are urgent": the newsletter is an email too
    queue_name = URGENT if job_type.endswith("_email") or job_type.startswith("send_") else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)


def route_everything_to_urgent(conn, job_type, payload):
    IMPACT[job_type]
    return queue.enqueue(conn, job_type, payload, queue=URGENT)


def route_by_a_list_of_names(conn, job_type, payload):
    # right today, wrong for the next job type someone adds to IMPACT
    IMPACT[job_type]
    urgent = {"send_confirmation_email", "send_password_reset", "sync_channel_manager"}
    return queue.enqueue(conn, job_type, payload, queue=URGENT if job_type in urgent else BULK)


def route_with_a_strict_threshold(conn, job_type, payload):
    # "at most 2 minutes" read as "under 2 minutes": the channel manager sync (exactly 120 s) goes to bulk
    impact = IMPACT[job_type]
    return queue.enqueue(conn, job_type, payload, queue=URGENT if impact.late_after_s < URGENT_WITHIN_S else BULK)


def route_unknown_types_to_bulk(conn, job_type, payload):
    # guesses instead of refusing: a new urgent job type would wait behind the next newsletter
    impact = IMPACT.get(job_type)
    urgent = impact is not None and impact.late_after_s <= URGENT_WITHIN_S
    return queue.enqueue(conn, job_type, payload, queue=URGENT if urgent else BULK)


def route_and_add_data(conn, job_type, payload):
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, {**payload, "email": "guest@example.com"}, queue=queue_name)


def route_but_return_nothing(conn, job_type, payload):
    impact = IMPACT[job_type]
    queue.enqueue(conn, job_type, payload, queue=URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK)


def route_then_refuse(conn, job_type, payload):
    """Stores first, asks later: the unknown type's job is already committed when it refuses."""
    job_id = queue.enqueue(conn, job_type, payload, queue=BULK)
    impact = IMPACT[job_type]
    conn.execute("UPDATE jobs SET queue = %s WHERE id = %s",
                 [URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK, job_id])
    return job_id


def refuse_with_a_runtime_error(conn, job_type, payload):
    if job_type not in IMPACT:
        raise RuntimeError(f"unknown job type {job_type}")  # says "broken", not "bad argument"
    impact = IMPACT[job_type]
    return queue.enqueue(conn, job_type, payload, queue=URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK)


def urgent_within_a_minute(conn, job_type, payload):
    """The threshold written out as 60 s instead of URGENT_WITHIN_S (120)."""
    impact = IMPACT[job_type]
    return queue.enqueue(conn, job_type, payload, queue=URGENT if impact.late_after_s <= 60 else BULK)


ROUTES = {name: URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK for name, impact in IMPACT.items()}


def route_from_a_table_made_once(conn, job_type, payload):
    """The routes worked out once, when the cell ran: a type added to IMPACT since is unknown to it."""
    return queue.enqueue(conn, job_type, payload, queue=ROUTES[job_type])


def route_and_read_the_id_back(conn, job_type, payload):
    """Reads the new job's id back from the table: another session's job may be the newest."""
    impact = IMPACT[job_type]
    queue.enqueue(conn, job_type, payload, queue=URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK)
    return conn.execute("SELECT max(id) FROM jobs").fetchone()[0]


def route_and_prioritise(conn, job_type, payload):
    """Urgent jobs get a priority too: not what the statement asks, and it reorders the urgent queue."""
    impact = IMPACT[job_type]
    urgent = impact.late_after_s <= URGENT_WITHIN_S
    return queue.enqueue(conn, job_type, payload, queue=URGENT if urgent else BULK, priority=10 if urgent else 0)


WRONG_ROUTES = {  # the answer, the checks it must fail, the checks it may fail as well
    "route_by_name": (route_by_name, [BY_IMPACT], [ADDED, REFUSED]),
    "route_everything_to_urgent": (route_everything_to_urgent, [BY_IMPACT], [ADDED]),
    "route_by_a_list_of_names": (route_by_a_list_of_names, [ADDED], []),
    "route_with_a_strict_threshold": (route_with_a_strict_threshold, [BY_IMPACT], [ADDED]),
    "route_unknown_types_to_bulk": (route_unknown_types_to_bulk, [REFUSED], []),
    "route_and_add_data": (route_and_add_data, [AS_GIVEN], []),
    "route_but_return_nothing": (route_but_return_nothing, [RETURN_ID], []),
    "route_then_refuse": (route_then_refuse, [REFUSED], []),
    "refuse_with_a_runtime_error": (refuse_with_a_runtime_error, [REFUSED], []),
    "urgent_within_a_minute": (urgent_within_a_minute, [BY_IMPACT], [ADDED]),
    "route_from_a_table_made_once": (route_from_a_table_made_once, [ADDED], []),
    "route_and_read_the_id_back": (route_and_read_the_id_back, [RETURN_ID], []),
    "route_and_prioritise": (route_and_prioritise, [AS_GIVEN], []),
}


@pytest.mark.parametrize("name", WRONG_ROUTES)
def test_wrong_routes_fail(name):
    answer, reasons, may = WRONG_ROUTES[name]
    report = run_check("09.route", enqueue_job=answer)
    assert fails_exactly(report, reasons, may), report.render()


def test_the_table_is_left_as_it_was_even_when_the_answer_fails():
    before = dict(IMPACT)
    run_check("09.route", enqueue_job=route_by_a_list_of_names)
    assert IMPACT == before


def test_a_misrouted_type_is_named_with_its_impact():
    text = run_check("09.route", enqueue_job=route_with_a_strict_threshold).render()
    assert "smallest failing example: enqueue_job(conn, 'sync_channel_manager', {'booking_id': 981})" in text
    assert "may be 120 s late" in text and "<=, not <" in text
    assert "expected: \"on 'urgent'\"" in text and "got:      \"on 'bulk'\"" in text


def test_an_id_read_back_is_caught_by_another_session_enqueueing_between_the_statements():
    text = run_check("09.route", enqueue_job=route_and_read_the_id_back).render()
    assert "another session enqueued a job and committed" in text and "reading it back" in text


# -- 09.newsletter -------------------------------------------------------------------------------


def newsletter_with_a_high_priority(conn, guest_ids):
    # "priority 10 = run later", as with Unix nice: here higher runs first
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids], priority=10)


def newsletter_at_the_default_priority(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids])


def newsletter_one_commit_per_guest(conn, guest_ids):
    return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY)
            for g in guest_ids]


def newsletter_on_a_bulk_queue(conn, guest_ids):
    # the two-queue fix, with no worker on "bulk" in a one-queue StayHub: it would never go out
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids], queue=BULK)


def newsletter_later_guests_first(conn, guest_ids):
    with conn.transaction():
        return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY + n)
                for n, g in enumerate(guest_ids)]


def newsletter_with_the_guests_email(conn, guest_ids):
    payloads = [{"guest_id": g, "email": f"guest{g}@example.com"} for g in guest_ids]
    return queue.enqueue_many(conn, "send_newsletter", payloads, priority=NEWSLETTER_PRIORITY)


def newsletter_ids_newest_first(conn, guest_ids):
    ids = queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                             priority=NEWSLETTER_PRIORITY)
    return sorted(ids, reverse=True)  # "the latest first", as a list of jobs is often shown


def newsletter_in_batches(conn, guest_ids):
    """A thousand at a time, each batch its own statement and (in autocommit) its own transaction."""
    ids = []
    for start in range(0, len(guest_ids), 1000):
        ids += queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids[start:start + 1000]],
                                  priority=NEWSLETTER_PRIORITY)
    return ids


def newsletter_none_for_no_guests(conn, guest_ids):
    if not guest_ids:
        return None
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids], priority=NEWSLETTER_PRIORITY)


def newsletter_sorted_guests(conn, guest_ids):
    """Sorted "to be tidy": the guests' own order is lost."""
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in sorted(guest_ids)],
                              priority=NEWSLETTER_PRIORITY)


def newsletter_in_batches_of_ten_thousand(conn, guest_ids):
    """Red team 9: batches big enough to pass for one statement on any list of a few thousand guests."""
    ids = []
    for start in range(0, len(guest_ids), 10_000):
        ids += queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids[start:start + 10_000]],
                                  priority=NEWSLETTER_PRIORITY)
    return ids


def newsletter_one_statement_only_for_short_lists(conn, guest_ids):
    """Red team 5: one statement up to 500 guests, then a commit per guest (passed with one, on any list the
    check drew, until it watched the thousand as well)."""
    if len(guest_ids) <= 500:
        return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                                  priority=NEWSLETTER_PRIORITY)
    return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY, notify=False)
            for g in guest_ids]


def newsletter_a_unique_key_per_guest(conn, guest_ids):
    """Red team 5: a guest listed twice (or still queued from the last newsletter) gets no second job."""
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY, unique_keys=[f"newsletter:{g}" for g in guest_ids])


def newsletter_each_guest_once(conn, guest_ids):
    """Red team 5: duplicates dropped "to be safe": a guest listed twice gets one job, and the ids no longer match."""
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in dict.fromkeys(guest_ids)],
                              priority=NEWSLETTER_PRIORITY)

ONE_PER_GUEST = "stores one job per guest"
CONTENT = "with the guest's id and nothing else"
ONE_QUEUE = "on the one queue"
BELOW = "is claimed first"
OWN_ORDER = "goes out in the order given"
ONE_TX = "in one transaction"
IDS_ORDER = "the ids returned are the stored jobs' ids, in the guests' order"
EMPTY = "no guests: returns [] and stores nothing"

WRONG_NEWSLETTERS = {  # the answer, the checks it must fail, the checks it may fail as well
    "newsletter_with_a_high_priority": (newsletter_with_a_high_priority, [BELOW], []),
    "newsletter_at_the_default_priority": (newsletter_at_the_default_priority, [BELOW], []),
    "newsletter_one_commit_per_guest": (newsletter_one_commit_per_guest, [ONE_TX], []),
    "newsletter_on_a_bulk_queue": (newsletter_on_a_bulk_queue, [ONE_QUEUE], []),
    # -10, -9, -8 ...: later guests first, and from the eleventh guest on, not below the default any more
    "newsletter_later_guests_first": (newsletter_later_guests_first, [OWN_ORDER], [BELOW]),
    "newsletter_with_the_guests_email": (newsletter_with_the_guests_email, [CONTENT], []),
    "newsletter_ids_newest_first": (newsletter_ids_newest_first, [IDS_ORDER], []),
    "newsletter_in_batches": (newsletter_in_batches, [ONE_TX], []),
    "newsletter_in_batches_of_ten_thousand": (newsletter_in_batches_of_ten_thousand, [ONE_TX], []),
    "newsletter_none_for_no_guests": (newsletter_none_for_no_guests, [EMPTY], []),
    "newsletter_sorted_guests": (newsletter_sorted_guests, [OWN_ORDER], [IDS_ORDER]),
    "newsletter_one_statement_only_for_short_lists": (newsletter_one_statement_only_for_short_lists, [ONE_TX], []),
    "newsletter_a_unique_key_per_guest": (newsletter_a_unique_key_per_guest, [ONE_PER_GUEST], []),
    "newsletter_each_guest_once": (newsletter_each_guest_once, [ONE_PER_GUEST], []),
}


@pytest.mark.parametrize("name", WRONG_NEWSLETTERS)
def test_wrong_newsletters_fail(name):
    answer, reasons, may = WRONG_NEWSLETTERS[name]
    report = run_check("09.newsletter", enqueue_newsletter=answer)
    assert fails_exactly(report, reasons, may), report.render()


def test_a_newsletter_that_jumps_the_queue_says_why():
    text = run_check("09.newsletter", enqueue_newsletter=newsletter_with_a_high_priority).render()
    assert "got:      'priority 10'" in text and "ORDER BY priority DESC" in text


def newsletter_priorities_falling(conn, guest_ids):
    """Every priority below 0, one each, falling: the claim order matches the guests' today (a blind red team's)."""
    with conn.transaction():
        return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=-1 - min(n, 100))
                for n, g in enumerate(guest_ids)]


def test_a_newsletter_of_many_priorities_is_shown_them_not_two_equal_lists():
    report = run_check("09.newsletter", enqueue_newsletter=newsletter_priorities_falling)
    assert failed(report) == ["the newsletter itself goes out in the order given"], report.render()
    text = report.render()
    assert "expected: 'one priority for every newsletter job'" in text and "priorities: [" in text, text


def test_a_newsletter_in_big_batches_is_seen_half_done_on_ten_thousand_and_one_guests():
    text = run_check("09.newsletter", enqueue_newsletter=newsletter_in_batches_of_ten_thousand).render()
    assert "another session saw 10000 of the 10001 jobs" in text and "(10001 guests)" in text, text


def test_a_newsletter_committed_in_pieces_is_seen_half_done_by_another_session():
    text = run_check("09.newsletter", enqueue_newsletter=newsletter_in_batches).render()
    assert "another session saw 1000 of the 1001 jobs" in text


# -- 09.quiz -------------------------------------------------------------------------------------


def test_a_wrong_quiz_answer_fails_without_giving_the_answer_away():
    report = run_check("09.quiz", q1="d", q2="b", q3="b", q4="a", q5="b")
    assert report.status == "failed"
    failed = [r for r in report.results if not r.passed]
    assert [r.name.split(":")[0] for r in failed] == ["q1", "q4"]
    assert "expected" not in report.render()
