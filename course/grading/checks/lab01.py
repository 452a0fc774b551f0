"""Lab 01: the background thread.

    01.receipts_lost     which orders have no receipt: orders (the database) against deliveries (the provider)
    01.predict           the learner's prediction, checked after the demo that measures it
    01.lose_a_receipt    lose one receipt on purpose, three ways, against a real checkout app and provider
    01.quiz              check yourself
"""

from __future__ import annotations

import time

from course.programs import tiffin
from course.programs.checkout import CheckoutApp
from course.programs.email_provider import Delivery, EmailProvider, ServiceUnreachable, Settings

from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask

# -- 01.receipts_lost -------------------------------------------------------------------------------


def _receipt(message: int, order_id: int, to: str) -> Delivery:
    return _email(message, to, tiffin.SUBJECT.format(order_id=order_id))


def _email(message: int, to: str, subject: str) -> Delivery:
    return Delivery(id=f"msg_{message:06d}", to=to, subject=subject, body="(a receipt)", idempotency_key=None,
                    at=1_760_000_000.0 + message)


ANA, BEN, CHEN = "ana@example.com", "ben@example.com", "chen@example.com"


def _ascending(got):
    """The ids sorted, when they can be: which ids is one check, their order another."""
    try:
        return sorted(got) if isinstance(got, list) else got
    except TypeError:
        return got


@exercise_check("01.receipts_lost")
def receipts_lost_check(t: Trial, receipts_lost):
    box = t.scratch()
    tiffin.install(box.conn)

    got = t.call(receipts_lost, box.conn, [], during="receipts_lost(conn, []) with no orders yet")
    t.require("returns a list (no orders, no deliveries: [])", ok=got == [] and isinstance(got, list), got=got,
              expected=[], example="an empty orders table and no deliveries")

    # Ana (customer 1) orders twice; Ben and Chen once each: orders 9812 to 9815.
    first, second, third, fourth = (tiffin.place_order(box.conn, customer, total_cents=1000 + customer)["id"]
                                    for customer in (1, 2, 1, 3))
    # Stored out of id order: a row updated gets a new version at the end of the table, so a query
    # without ORDER BY reads the first two orders last.
    box.conn.execute("UPDATE orders SET total_cents = total_cents WHERE id IN (%s, %s)", [first, second])

    got = t.call(receipts_lost, box.conn, [_receipt(1, first, ANA), _receipt(2, second, BEN), _receipt(3, fourth, CHEN)],
                 during="receipts_lost(conn, deliveries) with one receipt missing")
    t.expect("finds the one order without a receipt, although its customer got a receipt for another order",
             got=got, expected=[third],
             example=f"Ana placed orders {first} and {third}; only {first}'s receipt was delivered",
             note="match each receipt to its order by the order number in the subject, not by the address: "
                  "a customer can have several orders")

    deliveries = [
        _receipt(1, first, ANA),
        _receipt(2, first, ANA),  # the same receipt twice: still one order with a receipt
        _email(3, BEN, "Tiffin: 20% off your next thali this weekend"),  # not a receipt
        _receipt(4, second * 10, BEN),  # a receipt for order 98130, which is not in this table
    ]
    got = t.call(receipts_lost, box.conn, deliveries, during="receipts_lost(conn, deliveries) with noise")
    t.expect("is not fooled by a duplicate receipt, a newsletter or another order's number",
             got=_ascending(got), expected=[second, third, fourth],  # the order itself is judged below
             example=(f"orders {first}-{fourth}; deliveries: {first}'s receipt twice, a newsletter, and a receipt "
                      f"for order #{second * 10}"),
             note=f"counting deliveries is not enough (4 orders, 4 deliveries, 3 receipts missing); and "
                  f"'#{second * 10}' contains '{second}' without being its receipt")

    emails = {first: ANA, second: BEN, third: ANA, fourth: CHEN}
    everything = [_receipt(n, order_id, emails[order_id]) for n, order_id in enumerate((fourth, second, third, first), 1)]
    got = t.call(receipts_lost, box.conn, everything, during="receipts_lost(conn, deliveries), all delivered")
    t.expect("returns [] when every order has its receipt (delivered in any order)", got=got, expected=[],
             example=f"receipts for {fourth}, {second}, {third}, {first}")

    fifth = tiffin.place_order(box.conn, 2, total_cents=990)["id"]
    got = t.call(receipts_lost, box.conn, [_receipt(1, second, BEN)], during="receipts_lost(conn, deliveries)")
    t.expect("lists the order ids in ascending order", got=got, expected=[first, third, fourth, fifth],
             example=f"five orders, a receipt only for {second}")


# -- 01.predict and 01.quiz -------------------------------------------------------------------------


@exercise_check("01.predict")
def predict_check(t: Trial, predict_deploy, predict_crash):
    look = "look at the demo above: how many receipts were still in their threads when the process ended?"
    ask(t, "predict_deploy", predict_deploy, "c", "what a deploy (SIGTERM) does to the receipts in flight", look)
    ask(t, "predict_crash", predict_crash, "c", "what an out-of-memory kill (SIGKILL) does to them", look)


@exercise_check("01.quiz")
def quiz_check(t: Trial, q1, q2, q3, q4):
    ask(t, "q1", q1, "b", "why a graceful stop did not save the receipts",
        "what does the app wait for when it gets SIGTERM, and is a receipt thread one of those?")
    ask(t, "q2", q2, "c", "how many receipts are waiting right now, in thread mode",
        "which durable record changed when the process died?")
    ask(t, "q3", q3, "b", "what happens to a receipt the provider refuses once",
        "look at the provider's request log in the demo: how many attempts did each receipt get?")
    ask(t, "q4", q4, "c", "what fixes all three losses at once",
        "which option still works after a SIGKILL, an error and a restart?")


# -- 01.lose_a_receipt ----------------------------------------------------------------------------------

# When the app must die before a receipt leaves it, rendering takes longer than any graceful stop: the
# loss is then the learner's doing, not a race. When the app lives on, receipts are quick.
RENDER_S_WHEN_STOPPED = 10.0  # costs nothing: the app dies long before
RENDER_S_WHEN_RUNNING = 0.3
SETTLE_S = 1.0  # after that, a receipt thread that was going to send has sent
HOWS = ("deploy", "crash", "provider_error")
EXIT_CODES = {"deploy": (0, "SIGTERM, a rolling deploy's graceful stop: exit code 0 (app.terminate())"),
              "crash": (-9, "SIGKILL, what the out-of-memory killer sends: exit code -9 (app.kill())")}


@exercise_check("01.lose_a_receipt")
def lose_a_receipt_check(t: Trial, lose_a_receipt):
    box = t.scratch()
    tiffin.install(box.conn)
    provider = EmailProvider.start(latency_s=0.0, name="check-provider")
    apps: list[CheckoutApp] = []
    try:
        for how in HOWS:
            provider.reset(settings=True)
            render_s = RENDER_S_WHEN_RUNNING if how == "provider_error" else RENDER_S_WHEN_STOPPED
            app = CheckoutApp.start(schema=box.schema, provider_url=provider.url, mode="thread", install=False,
                                    receipt_render_s=render_s, name=f"check-checkout-{how.replace('_', '-')}")
            apps.append(app)
            order_id = t.call(lose_a_receipt, app, provider, how, during=f'lose_a_receipt(app, provider, "{how}")')
            if _placed(t, box, how, order_id):
                _judge(t, how, app, provider, order_id)
    finally:
        for app in apps:
            if app.alive():
                app.kill()
        if provider.alive():
            provider.kill()


def _placed(t: Trial, box, how: str, order_id) -> bool:
    is_id = isinstance(order_id, int) and not isinstance(order_id, bool)
    found = is_id and box.conn.execute("SELECT 1 FROM orders WHERE id = %s", [order_id]).fetchone() is not None
    return t.expect(f"{how}: returns the id of an order the checkout accepted", ok=found, got=order_id,
                    expected="the new order's id, e.g. 9812",
                    note=None if found else "place the order through the app (app.place_order(...)['id']) "
                                            "and return its id")


def _judge(t: Trial, how: str, app: CheckoutApp, provider: EmailProvider, order_id: int) -> None:
    if how in EXIT_CODES:
        expected_code, meaning = EXIT_CODES[how]
        code = _exit_code(app)
        t.expect(f"{how}: the app was stopped with {meaning.split(',')[0]}", got=_describe_exit(code),
                 expected=_describe_exit(expected_code), ok=code == expected_code, note=meaning)
    else:
        t.expect(f"{how}: the app is still running (it loses this receipt without any restart)", ok=app.alive(),
                 got=_describe_exit(_exit_code(app)) if not app.alive() else "running", expected="running")
        time.sleep(SETTLE_S)
    try:
        if how == "provider_error":
            _provider_refused(t, provider)
        received = tiffin.receipts_by_order(provider.deliveries())[order_id]
    except ServiceUnreachable:
        t.expect(f"{how}: the email provider is still running", ok=False,
                 note="make it fail (provider.configure(down=True)), don't stop it: the check needs its records")
        return
    t.expect(f"{how}: no receipt ever arrives for order {order_id}", got=f"{received} receipt(s)",
             expected="0 receipts", ok=received == 0,
             note=None if received == 0 else _why_it_arrived(how))
    if how == "provider_error":
        _provider_healthy_again(t, provider)


def _exit_code(app: CheckoutApp) -> int | None:
    try:
        return app.child.wait(10)
    except Exception:  # still running after 10 s (subprocess.TimeoutExpired)
        return None


def _describe_exit(code: int | None) -> str:
    return {None: "still running", 0: "exit code 0 (SIGTERM)", -9: "exit code -9 (SIGKILL)"}.get(
        code, f"exit code {code}")


def _provider_refused(t: Trial, provider: EmailProvider) -> None:
    refused = [r for r in provider.requests() if r.status >= 400]
    t.expect("provider_error: the provider refused the receipt's send", ok=bool(refused),
             got=f"{len(provider.requests())} request(s), none refused", expected="at least one refused send",
             note="make the provider fail (provider.configure(down=True)) before the receipt's thread sends, "
                  "and wait until it has tried (provider.requests())")


def _provider_healthy_again(t: Trial, provider: EmailProvider) -> None:
    settings = provider.settings()
    healthy = not Settings(**settings).down_at(time.time()) and settings["failure_rate"] == 0
    t.expect("provider_error: the provider works again when your function returns", ok=healthy,
             got={k: settings[k] for k in ("down", "down_from", "down_until", "failure_rate")},
             expected="down=False, no outage window now, failure_rate=0",
             note="leave the provider as you found it (provider.healthy()): the next customer's receipt should "
                  "go out")


def _why_it_arrived(how: str) -> str:
    if how == "provider_error":
        return ("the receipt's one attempt came after the provider was working again: wait until the provider "
                "has refused it (provider.requests() shows it) before you put the provider back")
    return "the receipt left the app before it stopped: stop the app right after the order, while the receipt renders"
