"""Plausible wrong answers to lab 09's exercises. Each must fail its check, and for the reason we expect:
a check that fails for some other reason would not teach what went wrong."""

import pytest

from course.core import queue
from course.grading import run_check
from course.programs.newsletter import BULK, IMPACT, NEWSLETTER_PRIORITY, URGENT, URGENT_WITHIN_S


def fails_because(report, reason: str) -> None:
    """The report failed, and one of its failed checks is named with `reason`."""
    text = report.render()
    assert report.status == "failed", text
    failed = [result.name for result in report.results if not result.passed]
    assert any(reason in name for name in failed), f"expected a failure about {reason!r}:\n{text}"


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


@pytest.mark.parametrize("answer, reason", [
    (route_by_name, "each job type goes to the queue its impact calls for"),
    (route_everything_to_urgent, "each job type goes to the queue its impact calls for"),
    (route_by_a_list_of_names, "a type added to IMPACT later is routed by its impact"),
    (route_with_a_strict_threshold, "each job type goes to the queue its impact calls for"),
    (route_unknown_types_to_bulk, "a job type missing from IMPACT is refused"),
    (route_and_add_data, "type and payload are stored as given"),
    (route_but_return_nothing, "returns the id of the job it stored"),
])
def test_wrong_routes_fail(answer, reason):
    fails_because(run_check("09.route", enqueue_job=answer), reason)


def test_the_table_is_left_as_it_was_even_when_the_answer_fails():
    before = dict(IMPACT)
    run_check("09.route", enqueue_job=route_by_a_list_of_names)
    assert IMPACT == before


def test_a_misrouted_type_is_named_with_its_impact():
    text = run_check("09.route", enqueue_job=route_by_name).render()
    # the most urgent type routed wrongly is the example: the sync is not an email, so it went to bulk
    assert "enqueue_job(conn, 'sync_channel_manager', ...): late after 120 s" in text
    assert "expected: 'urgent'" in text and "got:      'bulk'" in text


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


@pytest.mark.parametrize("answer, reason", [
    (newsletter_with_a_high_priority, "is claimed first"),
    (newsletter_at_the_default_priority, "is claimed first"),
    (newsletter_one_commit_per_guest, "in one transaction"),
    (newsletter_on_a_bulk_queue, "on the one queue"),
    (newsletter_later_guests_first, "goes out in the order given"),
    (newsletter_with_the_guests_email, "with the guest's id and nothing else"),
    (newsletter_ids_newest_first, "the ids returned are the stored jobs' ids, in the guests' order"),
])
def test_wrong_newsletters_fail(answer, reason):
    fails_because(run_check("09.newsletter", enqueue_newsletter=answer), reason)


def test_a_newsletter_that_jumps_the_queue_says_where_the_confirmation_went():
    text = run_check("09.newsletter", enqueue_newsletter=newsletter_with_a_high_priority).render()
    assert "got:      'claimed 6th of 6'" in text and "ORDER BY priority DESC" in text


# -- 09.quiz -------------------------------------------------------------------------------------


def test_a_wrong_quiz_answer_fails_without_giving_the_answer_away():
    report = run_check("09.quiz", q1="d", q2="b", q3="b", q4="a")
    assert report.status == "failed"
    failed = [r for r in report.results if not r.passed]
    assert [r.name.split(":")[0] for r in failed] == ["q1", "q4"]
    assert "expected" not in report.render()
