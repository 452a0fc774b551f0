"""Show, on hand-made outboxes, what each passing wrong relay_batch does that hint 4's answer does not.
`publish` here only records (subject, payload, msg_id). Run:
.venv/bin/python tests/grading/redteam/f5-f5b05/demos/relay_demos.py"""
import pathlib
from course.infra import db
from course.core import outbox, sql

HERE = pathlib.Path(__file__).resolve().parent.parent / "answers"
SCHEMA = "f5b05_demo"


def load(name):
    ns = {"sql": sql, "outbox": outbox, "SUBJECT": "lab05_orders.placed"}
    exec((HERE / f"{name}.py").read_text(), ns)
    return ns["relay_batch"]


def scenario(title, setup, names, limit=10):
    print(f"\n## {title}")
    for name in names:
        db.reset_schema(SCHEMA)
        with db.connect(SCHEMA) as conn:
            outbox.install(conn)
            setup(conn)
            sent = []
            result = load(name)(conn, lambda subject, payload, msg_id=None: sent.append(payload["n"]), limit)
            left = conn.execute("SELECT array_agg(id ORDER BY id) FILTER (WHERE sent_at IS NULL), count(*) "
                                "FROM outbox").fetchone()
            print(f"{name:40} -> returned {result}; published rows {sent}; unsent after {left[0]}; rows in table {left[1]}")


def add(conn, n):
    for i in range(1, n + 1):
        with conn.transaction():
            outbox.add(conn, "lab05_orders.placed", {"n": i})


def old_sent_rows(conn):
    add(conn, 5)
    conn.execute("UPDATE outbox SET sent_at = now() - interval '2 days' WHERE id <= 3")   # sent two days ago


def old_unsent_rows(conn):
    add(conn, 5)
    conn.execute("UPDATE outbox SET created_at = now() - interval '2 days' WHERE id <= 2")  # the relay was down 2 days


def resent_by_hand(conn):
    add(conn, 5)
    conn.execute("UPDATE outbox SET sent_at = now() WHERE id <= 2")
    conn.execute("UPDATE outbox SET sent_at = NULL WHERE id = 1")  # support marks row 1 unsent, to send it again


scenario("rows 1-3 sent two days ago, 4-5 unsent", old_sent_rows,
         ["relay_c01_hint4", "relay_w08_resends_old_sent_rows", "relay_w09_housekeeping_delete"])
scenario("rows 1-5 unsent, 1-2 written two days ago (the relay was down)", old_unsent_rows,
         ["relay_c01_hint4", "relay_w22_ignores_rows_older_than_a_day"])
scenario("rows 1-5; 1-2 sent, then row 1 marked unsent again by hand", resent_by_hand,
         ["relay_c01_hint4", "relay_w26_in_subquery_no_outer_order"])
with db.connect() as conn:
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


def fresh_rows(conn):
    add(conn, 5)   # written just now, as the check's and the lab's rows are... unless their created_at is set back


scenario("rows 1-5 written a moment ago", fresh_rows, ["relay_c01_hint4", "relay_w20_skips_young_rows"])


def two_relays(name):
    """Relay A (limit 2) is publishing its first row when relay B (limit 2, same code) runs a whole batch."""
    db.reset_schema(SCHEMA)
    with db.connect(SCHEMA) as a, db.connect(SCHEMA) as b:
        outbox.install(a)
        add(a, 5)
        relay = load(name)
        by_b, by_a, returned_b = [], [], []

        def publish_a(subject, payload, msg_id=None):
            if not by_a:
                returned_b.append(relay(b, lambda s, p, msg_id=None: by_b.append(p["n"]), 2))
            by_a.append(payload["n"])

        returned_a = relay(a, publish_a, 2)
        print(f"{name:40} -> relay A returned {returned_a}, published {by_a}; relay B (while A held its rows) "
              f"published {by_b}, returned {returned_b[0]}")


def two_relays_b_waits(name):
    """As above, but relay B gives up after waiting 1 s for a lock (lock_timeout), to show whether it waits."""
    db.reset_schema(SCHEMA)
    with db.connect(SCHEMA) as a, db.connect(SCHEMA) as b:
        outbox.install(a)
        add(a, 5)
        b.execute("SET lock_timeout = '1s'")
        relay = load(name)
        seen = []

        def publish_a(subject, payload, msg_id=None):
            if not seen:
                try:
                    seen.append(f"B returned {relay(b, lambda *args, **kw: None, 2)}")
                except Exception as error:
                    seen.append(f"B waited 1 s for A and gave up: {type(error).__name__}")
            seen.append(payload["n"])

        relay(a, publish_a, 2)
        print(f"{name:40} -> {seen[0]}")


print("\n## two relays running the same code at once, 5 unsent rows, limit 2 each")
for name in ("relay_c01_hint4", "relay_w19_singleton_advisory"):
    two_relays(name)
for name in ("relay_c01_hint4", "relay_w29_blocking_advisory_lock"):
    two_relays_b_waits(name)


def ids_past_int4(conn):
    conn.execute("ALTER TABLE outbox ALTER COLUMN id RESTART WITH 3000000000")
    add(conn, 2)


for name in ("relay_c01_hint4", "relay_w30_int4_ids"):
    try:
        scenario("an outbox whose ids have passed 2^31", ids_past_int4, [name])
    except Exception as error:
        print(f"{name:40} -> raised {type(error).__name__}: {error}")
with db.connect() as conn:
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
