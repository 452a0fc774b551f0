"""Lab 02: a queue, and what goes in a job.

    02.place_order    the producer: the order and its send_receipt job, ids only, in one transaction
    02.send_receipt   the handler: read the order and the customer now, send, and let a failure raise;
                      run directly (a customer who moves between two orders) and in real worker
                      processes against a provider that refuses a third of the sends
    02.quiz           check yourself
"""

from __future__ import annotations

import random

import cloudpickle

from course.infra import processes
from course.core import queue
from course.grading import faults
from course.programs import tiffin
from course.programs.email_provider import EmailProvider

from course.grading.trial import Trial
from course.grading.checks import exercise_check, shared
from course.grading.checks.quiz import ask

THALI = [{"name": "paneer thali", "quantity": 2, "price_cents": 1150}]


# -- 02.place_order -----------------------------------------------------------------------------------


def _counts(conn) -> tuple[int, int]:
    return conn.execute("SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM jobs)").fetchone()


def _empty(conn) -> None:
    conn.execute("TRUNCATE orders, jobs")


@exercise_check("02.place_order")
def place_order_check(t: Trial, place_order_and_enqueue):
    box = t.scratch()
    tiffin.install(box.conn)
    conn = box.conn

    order_id = t.call(place_order_and_enqueue, conn, 1, THALI, during="place_order_and_enqueue(conn, 1, THALI)")
    t.require("returns the new order's id (an int)", ok=isinstance(order_id, int) and not isinstance(order_id, bool),
              got=order_id, expected="an id like 9812", example="place_order_and_enqueue(conn, 1, THALI)")
    orders = conn.execute("SELECT id, customer_id, items, total_cents FROM orders").fetchall()
    t.require("stores the order: customer 1, two paneer thalis, 23.00", got=orders,
              expected=[(order_id, 1, THALI, 2300)], example="place_order_and_enqueue(conn, 1, THALI)",
              note="tiffin.place_order(conn, customer_id, items=items) checks and stores it")
    jobs = conn.execute("SELECT type, payload, queue FROM jobs").fetchall()
    t.require("stores exactly one job", got=len(jobs), expected=1, example="one order placed")
    job_type, payload, queue_name = jobs[0]
    t.expect("the job's type is 'send_receipt'", got=job_type, expected="send_receipt")
    t.expect("the job carries the order's id and nothing else (ids, not data)", got=payload,
             expected={"order_id": order_id}, example="place_order_and_enqueue(conn, 1, THALI)",
             note="the worker reads the customer, the address and the items when it runs")

    _empty(conn)
    shared.expect_jobs_in_the_business_transaction(
        t, lambda c: place_order_and_enqueue(c, 2, THALI), conn, table="orders", thing="order",
        told="the customer is not told 'order placed'", gets="a receipt",
        call="place_order_and_enqueue(conn, 2, THALI)")

    _empty(conn)
    refused = None
    try:
        place_order_and_enqueue(conn, 999, THALI)
    except Exception as error:
        refused = error
    t.expect("an order the checkout refuses (no customer 999) leaves no job and raises",
             ok=refused is not None and _counts(conn) == (0, 0),
             got=f"{'raised' if refused else 'returned'}, {_counts(conn)[1]} job(s) stored",
             expected="raised, 0 jobs stored", example="place_order_and_enqueue(conn, 999, THALI)")


# -- 02.send_receipt --------------------------------------------------------------------------------

RIVERSIDE = "9 Riverside Walk"
HARBOUR = "40 Quayside, Flat 9"
FAILURE_RATE = 0.3  # about a third of the sends are refused (503) in the worker run
WORKER_ORDERS = (2, 3, 4, 5, 2, 3)  # the customers of the orders the workers send receipts for


def provider_seed(seed: int, sends: int, refused: int) -> int:
    """The first seed from `seed` on whose first `sends` sends the provider refuses at least `refused`.

    The provider draws one number per send from random.Random(seed), in arrival order, and refuses the
    send when it is below the failure rate. Whatever the order the workers send in, the first sends
    then include refusals: a handler that swallows them cannot pass by luck.
    """
    candidate = seed
    while True:
        draws = random.Random(candidate)
        if sum(draws.random() < FAILURE_RATE for _ in range(sends)) >= refused:
            return candidate
        candidate += 1


def _worker_env(provider: EmailProvider) -> dict[str, str]:
    return {tiffin.PROVIDER_URL_ENV: provider.url, tiffin.RENDER_S_ENV: "0"}


def _receipts_for(provider: EmailProvider, order_id: int) -> list:
    subject = tiffin.SUBJECT.format(order_id=order_id)
    return [d for d in provider.deliveries() if d.subject == subject]


@exercise_check("02.send_receipt")
def send_receipt_check(t: Trial, send_receipt, seed=None):
    t.seed = seed if seed is not None else random.randrange(1, 10**6)
    box = t.scratch()
    tiffin.install(box.conn)
    provider = EmailProvider.start(latency_s=0.0, seed=t.seed, name="check-provider")
    try:
        _in_this_process(t, box, provider, send_receipt)
        _in_worker_processes(t, box, provider, send_receipt)
    finally:
        provider.kill()


def _run_receipt_job(t: Trial, conn, send_receipt, order_id: int, before_it_runs=lambda: None) -> None:
    """Enqueue and claim a send_receipt job, let `before_it_runs` change the world, run the handler, ack."""
    queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    job = queue.claim_one(conn, lease_s=60)
    before_it_runs()
    t.call(send_receipt, job, conn, during=f"send_receipt(job, conn) for order {order_id}")
    queue.ack(conn, job)


def _in_this_process(t: Trial, box, provider: EmailProvider, send_receipt) -> None:
    conn = box.conn
    with processes.environment(_worker_env(provider)):
        # Ana orders; the job is stored; she moves before the worker runs it.
        first = tiffin.place_order(conn, 1, items=THALI)["id"]
        _run_receipt_job(t, conn, send_receipt, first, before_it_runs=lambda: tiffin.change_address(conn, 1, RIVERSIDE))
        sent = _receipts_for(provider, first)
        t.require(f"sends one receipt for order {first}", got=f"{len(sent)} receipt(s)", expected="1 receipt",
                  ok=len(sent) == 1, example=f"a send_receipt job {{'order_id': {first}}}",
                  note="send it with send_email(tiffin.provider_url(), ...): the subject must be "
                       f"{tiffin.SUBJECT.format(order_id=first)!r} (tiffin.render_receipt makes it)")
        _expect_fresh(t, sent[0], "ana@example.com", RIVERSIDE, "14 Carver Street",
                      f"Ana ordered at 14 Carver Street, then moved to {RIVERSIDE} before the job ran")

        # She orders again and moves again: whatever was read for the first receipt is out of date now.
        second = tiffin.place_order(conn, 1, total_cents=990)["id"]
        tiffin.change_address(conn, 1, HARBOUR)
        _run_receipt_job(t, conn, send_receipt, second)
        sent = _receipts_for(provider, second)
        t.require(f"sends one receipt for order {second}", got=f"{len(sent)} receipt(s)", expected="1 receipt",
                  ok=len(sent) == 1)
        _expect_fresh(t, sent[0], "ana@example.com", HARBOUR, RIVERSIDE,
                      f"Ana's second order, after she moved again to {HARBOUR}",
                      note_if_stale="keep nothing from one job to the next: read the customer again for every job")


def _expect_fresh(t: Trial, receipt, email: str, address: str, old: str, example: str,
                  note_if_stale: str = "read the address from the customers table when the job runs") -> None:
    t.expect("the receipt goes to the customer's email", got=receipt.to, expected=email)
    t.expect(f"the receipt shows the address as it is when the job runs ({address})",
             ok=address in receipt.body and old not in receipt.body, got=_delivering_to(receipt.body),
             expected=address, example=example, note=note_if_stale)


def _refused_addresses(provider: EmailProvider) -> str:
    return ", ".join(sorted({r.to for r in provider.requests() if r.status == 503}))


def _delivering_to(body: str) -> str:
    lines = [line for line in body.splitlines() if "Delivering to" in line]
    return lines[0] if lines else body[-120:]


def _in_worker_processes(t: Trial, box, provider: EmailProvider, send_receipt) -> None:
    conn = box.conn
    try:
        cloudpickle.dumps(send_receipt)
        refused = None
    except Exception as error:  # noqa: BLE001 (whatever the learner's function refers to may refuse)
        refused = f"{type(error).__name__}: {error}"
    t.require("the handler can be sent to a worker process", ok=refused is None,
              got=refused or "pickled with everything it refers to", expected="pickled with everything it refers to",
              example="cloudpickle.dumps(send_receipt), as the fault injector ships it to its workers",
              note="it refers to something only this notebook has.\nA worker is another process: use the job and "
                   "the connection you are given, and find the provider with tiffin.provider_url() (the "
                   "EMAIL_PROVIDER_URL variable)" if refused else None)
    provider.reset()
    provider.configure(failure_rate=FAILURE_RATE, seed=provider_seed(t.seed, len(WORKER_ORDERS), refused=2))
    orders = [tiffin.place_order(conn, customer, total_cents=1000 + customer)["id"] for customer in WORKER_ORDERS]
    tiffin.change_address(conn, 3, RIVERSIDE)  # Chen moves after ordering, before any worker runs
    scenario = faults.Scenario(send_receipt, [{"order_id": order_id} for order_id in orders], workers=2,
                               concurrency=2, lease_s=5.0, env=_worker_env(provider), timeout_s=60)
    run = faults.run(box, scenario, seed=t.seed)
    faults.expect_finished(t, run)
    stats = provider.stats()["by_outcome"]
    got = {order_id: len(_receipts_for(provider, order_id)) for order_id in orders}
    missing = [order_id for order_id, count in got.items() if count == 0]
    job_of = dict(zip(orders, run.job_ids))
    every = f"all {len(orders)} receipts"
    t.expect("in 2 worker processes, with about a third of the sends refused (503), every order gets its receipt",
             ok=not missing, got=f"{len(missing)} order(s) without a receipt" if missing else every,
             expected=every, example=f"{len(orders)} orders; the provider refused {stats.get('failed', 0)} sends",
             note=None if not missing else (
                 f"the provider refused {stats.get('failed', 0)} send(s) (to {_refused_addresses(provider)}). A send "
                 "the provider refused must raise out of the handler: then the queue runs the job again. A handler "
                 "that returns normally tells the worker the job is done, and the receipt is lost as in lab 01.\n"
                 + run.timeline(job_of[missing[0]])))
    chen = [d for order_id in orders[1::4] for d in _receipts_for(provider, order_id)]
    t.expect(f"workers read the address when they run: Chen's receipts say {RIVERSIDE}",
             ok=bool(chen) and all(RIVERSIDE in d.body for d in chen),
             got=[_delivering_to(d.body) for d in chen], expected=f"Delivering to: {RIVERSIDE}")


# -- 02.quiz --------------------------------------------------------------------------------------


@exercise_check("02.quiz")
def quiz_check(t: Trial, q1, q2, q3, q4, q5):
    ask(t, "q1", q1, "b", "where the receipt job is written",
        "what does a customer get if the order commits and the next step never runs?")
    ask(t, "q2", q2, "a", "which job gives the rider the right address",
        "which address did each receipt show in section 5?")
    ask(t, "q3", q3, "b", "what a checkout crash does to stored jobs",
        "count the jobs before and after the SIGKILL in section 2")
    ask(t, "q4", q4, "a", "why payloads stay small", "try the three designs in section 5 again")
    ask(t, "q5", q5, "b", "a handler that swallows the provider's error",
        "the worker decides done or failed from one thing: did the handler raise?")
