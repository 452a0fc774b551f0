"""Show, on a hand-made state, what each passing wrong cancel_order does that hint 3's answer does not.
Run: .venv/bin/python tests/grading/redteam/f5-f5b05/demos/cancel_demos.py"""
import pathlib
from course.infra import db
from course.core import outbox, queue
from course.programs import tiffin

HERE = pathlib.Path(__file__).resolve().parent.parent / "answers"
SCHEMA = "f5b05_demo"
CANCELLED = "lab05_orders.cancelled"


def load(name):
    ns = {"outbox": outbox, "CANCELLED": CANCELLED, "tiffin": tiffin, "db": db, "SCHEMA": SCHEMA}
    exec((HERE / f"{name}.py").read_text(), ns)
    return ns["cancel_order"]


def scenario(title, setup, order_id, names):
    print(f"\n## {title}")
    for name in names:
        db.reset_schema(SCHEMA)
        with db.connect(SCHEMA) as conn:
            tiffin.install(conn)
            outbox.install(conn)
            setup(conn)
            try:
                result = load(name)(conn, order_id)
            except Exception as error:
                result = f"raised {type(error).__name__}: {error}"
            orders = conn.execute("SELECT id, status FROM orders ORDER BY id").fetchall()
            rows = conn.execute("SELECT subject, payload, sent_at IS NULL FROM outbox ORDER BY id").fetchall()
            jobs = conn.execute("SELECT type, payload FROM jobs ORDER BY id").fetchall()
            print(f"{name:40} -> {result!r:8} orders {orders} outbox {rows} jobs {jobs}")


def old_order(conn):
    conn.execute("INSERT INTO orders (customer_id, total_cents, created_at) VALUES (1, 2350, now() - interval '2 hours')")


def order_with_receipt_job(conn):
    order = tiffin.place_order(conn, 1, total_cents=2350)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})


def placed_order_with_old_cancellation(conn):
    # order 9812 was cancelled once (announced), then support put it back to placed: the customer cancels again
    tiffin.place_order(conn, 1, total_cents=2350)
    with conn.transaction():
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = 9812")
        outbox.add(conn, CANCELLED, {"order_id": 9812})
    conn.execute("UPDATE outbox SET sent_at = now()")
    conn.execute("UPDATE orders SET status = 'placed' WHERE id = 9812")


def big_id(conn):
    conn.execute("INSERT INTO orders (id, customer_id, total_cents) VALUES (3000000000, 1, 100)")


scenario("an order placed two hours ago, still placed", old_order, 9812,
         ["cancel_c01_hint3", "cancel_w17_only_recent_orders"])
scenario("an order with its receipt job still queued", order_with_receipt_job, 9812,
         ["cancel_c01_hint3", "cancel_w20_deletes_receipt_job"])
scenario("a placed order whose earlier cancellation is already in the outbox", placed_order_with_old_cancellation, 9812,
         ["cancel_c01_hint3", "cancel_w21_dedupe_outbox_row"])
scenario("an order id beyond int4", big_id, 3000000000, ["cancel_c01_hint3", "cancel_w09_int4_cast"])
with db.connect() as conn:
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
