"""The cancel button called inside the caller's transaction, after the caller has done some work (here: it
places a second order first, then cancels 9812, as a "swap my order" button would; when the cancel fails it
keeps the new order and says so). Hint 3's answer and
the given-connection wrong answers side by side.
Run: .venv/bin/python tests/grading/redteam/f5-f5b05/demos/cancel_in_callers_transaction.py"""
import pathlib
from course.infra import db
from course.core import outbox
from course.programs import tiffin

HERE = pathlib.Path(__file__).resolve().parent.parent / "answers"
SCHEMA = "f5b05_demo"
CANCELLED = "lab05_orders.cancelled"


def load(name):
    ns = {"outbox": outbox, "CANCELLED": CANCELLED, "tiffin": tiffin, "db": db, "SCHEMA": SCHEMA}
    exec((HERE / f"{name}.py").read_text(), ns)
    return ns["cancel_order"]


def swap(name, fail_outbox):
    db.reset_schema(SCHEMA)
    with db.connect(SCHEMA) as conn:
        tiffin.install(conn)
        outbox.install(conn)
        tiffin.place_order(conn, 1, total_cents=2350)                 # 9812, placed
        if fail_outbox:  # the outbox row cannot be stored
            conn.execute("ALTER TABLE outbox ADD CONSTRAINT no_more CHECK (false) NOT VALID")
        outcome = ""
        try:
            with conn.transaction():                                    # the caller's transaction
                tiffin.place_order(conn, 2, total_cents=1890)           # the caller's own work first
                try:
                    outcome = f"returned {load(name)(conn, 9812)!r}"
                except Exception as error:   # the caller tells the customer, and keeps the new order
                    outcome = f"raised {type(error).__name__}: {str(error).splitlines()[0]}"
        except Exception as error:
            outcome += f"; the caller's block ended with {type(error).__name__}"
        orders = conn.execute("SELECT id, status FROM orders ORDER BY id").fetchall()
        print(f"{name:36} outbox failing={fail_outbox!s:5} {outcome}\n{'':36} orders after: {orders}")


for fail in (False, True):
    for name in ("cancel_c01_hint3", "cancel_w22_set_isolation_first", "cancel_w23_rollback_on_error",
                 "cancel_w25_autocommit_toggle_restored", "cancel_w27_commit_by_habit"):
        swap(name, fail)
with db.connect() as conn:
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


def raw_begin_then_rollback(name):
    """A caller that opens its transaction with BEGIN, places an order, cancels 9812, then changes its mind: ROLLBACK."""
    db.reset_schema(SCHEMA)
    with db.connect(SCHEMA) as conn:
        tiffin.install(conn)
        outbox.install(conn)
        tiffin.place_order(conn, 1, total_cents=2350)
        conn.execute("BEGIN")
        tiffin.place_order(conn, 2, total_cents=1890)
        try:
            outcome = f"returned {load(name)(conn, 9812)!r}"
        except Exception as error:
            outcome = f"raised {type(error).__name__}"
        conn.execute("ROLLBACK")
        orders = conn.execute("SELECT id, status FROM orders ORDER BY id").fetchall()
        rows = conn.execute("SELECT count(*) FROM outbox").fetchone()[0]
        print(f"{name:36} BEGIN ... ROLLBACK caller: {outcome}; after the caller's ROLLBACK: orders {orders}, outbox rows {rows}")


for name in ("cancel_c01_hint3", "cancel_w27_commit_by_habit"):
    raw_begin_then_rollback(name)
with db.connect() as conn:
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
