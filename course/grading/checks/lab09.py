"""Lab 09: one queue or two. Routing by business impact, and a newsletter that lets confirmations by.

Both checks read what the learner's code stored with the reference queue's own claim (ORDER BY
priority DESC, run_at, id ... FOR UPDATE SKIP LOCKED): the order a real worker would take the jobs in.
"""

from course.core import queue
from course.programs import newsletter as newsletter_module
from course.programs.newsletter import BULK, IMPACT, URGENT, URGENT_WITHIN_S, Impact

from course.grading.trial import NotStarted, Trial
from course.grading.checks import exercise_check, shared
from course.grading.checks.quiz import ask

BOOKING = {"booking_id": 981}


def _expected_queue(impact: Impact) -> str:
    return URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK


def _late(impact: Impact) -> str:
    seconds = impact.late_after_s
    return f"{seconds} s" if seconds < 3600 else f"{seconds / 3600:g} h"


def _stored(conn, job_id):
    return conn.execute("SELECT queue, type, payload FROM jobs WHERE id = %s", [job_id]).fetchone()


@exercise_check("09.route")
def route(t: Trial, enqueue_job):
    box = t.scratch()

    # Every job type StayHub has, most urgent first: the first one routed wrongly is the example.
    misrouted, kept = [], True
    for job_type, impact in sorted(IMPACT.items(), key=lambda item: (item[1].late_after_s, item[0])):
        example = f"enqueue_job(conn, {job_type!r}, {BOOKING})"
        job_id = t.call(enqueue_job, box.conn, job_type, dict(BOOKING), during=example)
        row = _stored(box.conn, job_id) if isinstance(job_id, int) and not isinstance(job_id, bool) else None
        if row is None:
            t.require("returns the id of the job it stored (an int), for every job type", ok=False, got=job_id,
                      example=example)
        stored_queue, stored_type, payload = row
        kept = kept and stored_type == job_type and payload == BOOKING
        if stored_queue != _expected_queue(impact) and not misrouted:
            misrouted.append((job_type, impact, stored_queue))
    t.expect("returns the id of the job it stored (an int), for every job type", ok=True)
    if misrouted:
        job_type, impact, got = misrouted[0]
        t.expect("each job type goes to the queue its impact calls for", ok=False, got=got,
                 expected=_expected_queue(impact),
                 example=f"enqueue_job(conn, {job_type!r}, ...): late after {_late(impact)}",
                 note=f"a job that may be at most {URGENT_WITHIN_S} s late goes to {URGENT!r}; "
                      f"anything that can wait longer goes to {BULK!r}")
    else:
        t.expect("each job type goes to the queue its impact calls for", ok=True)
    t.expect("the job's type and payload are stored as given", ok=kept,
             got="a type or payload changed on the way", expected="the same type and payload",
             example=f"enqueue_job(conn, 'send_confirmation_email', {BOOKING})")

    # A job type added to the table later is routed by what the table says about it, not by its name.
    newcomers = {"send_checkin_code": Impact("a guest at the hotel's door", 90),
                 "export_tax_report": Impact("the accountant, by the end of the quarter", 7 * 86_400)}
    with shared.with_entries(enqueue_job, IMPACT, newsletter_module, "IMPACT", newcomers):
        for job_type, impact in newcomers.items():
            job_id = t.call(enqueue_job, box.conn, job_type, dict(BOOKING),
                            during=f"enqueue_job(conn, {job_type!r}, ...) for a type added to IMPACT")
            row = _stored(box.conn, job_id) if isinstance(job_id, int) else None
            got = row[0] if row else f"no job stored for id {job_id!r}"
            if not t.expect(f"a type added to IMPACT later is routed by its impact ({job_type})",
                            got=got, expected=_expected_queue(impact),
                            example=f"IMPACT[{job_type!r}] = Impact(..., late_after_s={impact.late_after_s}); "
                                    f"enqueue_job(conn, {job_type!r}, ...)",
                            note="read late_after_s from IMPACT: a list of names goes stale with the next job type"):
                break

    # A type nobody has classified is refused: guessing puts it in one of the two wrong places some day.
    before = box.conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
    unknown = "send_birthday_coupon"
    try:
        enqueue_job(box.conn, unknown, {"guest_id": 7})
        outcome = "it was enqueued"
    except NotImplementedError:
        t.not_started = "`enqueue_job` still raises NotImplementedError"
        raise NotStarted from None
    except (ValueError, LookupError) as error:
        outcome = f"refused ({type(error).__name__})"
    except Exception as error:  # refused, but with an error that does not say "bad argument"
        outcome = f"{type(error).__name__}: {error}"
    after = box.conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
    t.expect("a job type missing from IMPACT is refused (ValueError or KeyError) and nothing is stored",
             ok=outcome.startswith("refused") and after == before, got=f"{outcome}; {after - before} job(s) stored",
             expected="refused; 0 job(s) stored", example=f"enqueue_job(conn, {unknown!r}, {{'guest_id': 7}})",
             note="someone must decide who waits for a new job type before it can run")

    # The Friday story, end to end: a newsletter, then a booking; the urgent queue's worker takes the booking.
    box.conn.execute("DELETE FROM jobs")
    for guest in range(1, 51):
        t.call(enqueue_job, box.conn, "send_newsletter", {"guest_id": guest}, during="enqueue_job(conn, "
               "'send_newsletter', {'guest_id': ...}) fifty times")
    t.call(enqueue_job, box.conn, "send_confirmation_email", dict(BOOKING),
           during="enqueue_job(conn, 'send_confirmation_email', ...) after the newsletter")
    first = queue.claim_one(box.conn, URGENT, lease_s=30)
    t.expect(f"behind 50 newsletter jobs, a worker on {URGENT!r} claims the confirmation first",
             got=first.type if first else "nothing to claim", expected="send_confirmation_email",
             example="50 × enqueue_job(conn, 'send_newsletter', ...), then one 'send_confirmation_email'")


@exercise_check("09.newsletter")
def newsletter(t: Trial, enqueue_newsletter):
    box = t.scratch()
    guests = [101, 102, 103, 104, 105]
    call = f"enqueue_newsletter(conn, {guests})"
    ids = t.call(enqueue_newsletter, box.conn, list(guests), during=call)
    t.require("returns the new jobs' ids, one per guest", ok=isinstance(ids, list) and len(ids) == len(guests)
              and all(isinstance(i, int) and not isinstance(i, bool) for i in ids), got=ids, example=call)
    rows = box.conn.execute("SELECT id, queue, type, payload, priority, created_at FROM jobs ORDER BY id").fetchall()
    t.require("stores one job per guest", got=len(rows), expected=len(guests), example=call)
    t.expect("the ids returned are the stored jobs' ids, in the guests' order", got=ids, expected=[r[0] for r in rows],
             example=call)
    stored = [(r[2], r[3]) for r in rows]
    wanted = [("send_newsletter", {"guest_id": g}) for g in guests]
    first_wrong = next((n for n, (got, want) in enumerate(zip(stored, wanted)) if got != want), None)
    if first_wrong is None:
        t.expect("each job is a 'send_newsletter' with the guest's id and nothing else", ok=True)
    else:
        t.expect("each job is a 'send_newsletter' with the guest's id and nothing else",
                 got=stored[first_wrong], expected=wanted[first_wrong], example=call,
                 note=f"the job for guest {guests[first_wrong]} (type, payload)")
    t.expect("every job is on the one queue, 'default' (this exercise fixes it with priorities)",
             got=sorted({r[1] for r in rows}), expected=["default"], example=call)
    t.expect("the whole newsletter is enqueued in one transaction",
             ok=len({r[5] for r in rows}) == 1, got=f"{len({r[5] for r in rows})} different transactions",
             expected="1 transaction", example=call,
             note="each enqueue() on an autocommit connection commits on its own: 48,000 commits, and a "
                  "crash halfway leaves half a newsletter enqueued. queue.enqueue_many stores a list in one "
                  "statement")

    confirmation = queue.enqueue(box.conn, "send_confirmation_email", dict(BOOKING))
    order = []
    while (job := queue.claim_one(box.conn, "default", lease_s=30)) is not None:
        order.append(job)
    position = next((n for n, job in enumerate(order, 1) if job.id == confirmation), None)
    t.expect("a confirmation enqueued after the newsletter (at the default priority, 0) is claimed first",
             got=f"claimed {_ordinal(position)} of {len(order)}" if position else "never claimed",
             expected=f"claimed 1st of {len(order)}",
             example=f"{call}, then queue.enqueue(conn, 'send_confirmation_email', {BOOKING})",
             note="the claim takes the highest priority first (ORDER BY priority DESC): the newsletter needs "
                  "a priority below 0, the default")
    sent = [job.payload.get("guest_id") for job in order if job.type == "send_newsletter"]
    t.expect("the newsletter itself goes out in the order given", got=sent, expected=guests, example=call,
             note="give every newsletter job the same priority: the claim keeps enqueue order within one priority")

    box.conn.execute("DELETE FROM jobs")
    empty = t.call(enqueue_newsletter, box.conn, [], during="enqueue_newsletter(conn, [])")
    stored = box.conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
    t.expect("no guests: returns [] and stores nothing", got=(empty, stored), expected=([], 0),
             example="enqueue_newsletter(conn, [])")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@exercise_check("09.quiz")
def quiz(t: Trial, q1, q2, q3, q4):
    ask(t, "q1", q1, "c", "the confirmation behind 48,000 newsletter jobs at 40 jobs/s",
        "how many seconds does it take to get through 48,000 jobs at 40 a second?")
    ask(t, "q2", q2, "b", "the longest a confirmation waits with priorities on one queue",
        "it jumps the waiting jobs, but both workers are already busy with one newsletter job each")
    ask(t, "q3", q3, "b", "what a dedicated urgent worker costs",
        "how many workers are left for the newsletter, and what happens to its 20 minutes?")
    ask(t, "q4", q4, "c", "the alert that catches late confirmations",
        "which number tells you a guest has been waiting too long, whatever the newsletter does?")
