"""The outbox and its relay: real relay processes between a real PostgreSQL and a real NATS server.

The NATS server is a private one (a temporary folder, stopped at the end), and every test publishes
into a stream of its own, so nothing here disturbs the shared server or another test.
"""

import secrets
import signal
from collections import Counter

import pytest

from course.errors import StreamNotFound
from course.infra import broker, nats_server
from course.core import outbox
from course.errors import InvalidArgument
from course.infra.processes import wait_until

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers


@pytest.fixture(scope="module")
def nats_url(tmp_path_factory):
    server = nats_server.NatsServer(tmp_path_factory.mktemp("nats"), survives_exit=False)
    server.start()
    yield server.url()
    server.stop()


@pytest.fixture
def stream() -> str:
    """A stream name of this test's own; its subjects are '<name in lower case>.>'."""
    return f"T{secrets.token_hex(4).upper()}"


@pytest.fixture
def db(conn):
    """The test's schema with an outbox table and a little orders table to announce."""
    outbox.install(conn)
    conn.execute("CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, total_cents int NOT NULL)")
    return conn


@pytest.fixture
def start_relay(schema, started):
    """start_relay(**settings) -> Child; every relay is killed at the end of the test, also on failure."""
    def start(**settings):
        child = outbox.spawn(schema, name=f"relay{len(started)}", **settings)
        started.append(child)
        return child

    return start


def place_orders(conn, stream: str, count: int) -> list[int]:
    """Each order and its announcement in one transaction, as an application would write them."""
    ids = []
    for n in range(count):
        with conn.transaction():
            order_id = conn.execute("INSERT INTO orders (total_cents) VALUES (%s) RETURNING id", [100 + n]).fetchone()[0]
            ids.append(outbox.add(conn, f"{stream.lower()}.placed", {"order_id": order_id}))
    return ids


def sent_ids(conn) -> set[int]:
    return {row[0] for row in conn.execute("SELECT id FROM outbox WHERE sent_at IS NOT NULL")}


def outbox_ids_in(stream: str, url: str) -> list[int]:
    return [int(m.headers["Outbox-Id"]) for m in broker.messages(stream, url=url, limit=10_000)]


def stored(stream: str, url: str) -> int:
    try:
        return broker.count_messages(stream, url=url)
    except StreamNotFound:  # the relay creates it when it starts
        return 0


def wait_all_sent(conn, timeout: float = 60):
    wait_until(lambda: outbox.stats(conn).unsent == 0, timeout, what="every outbox row to be sent")


# -- the table -------------------------------------------------------------------------------------


def test_add_writes_only_with_the_business_transaction_and_refuses_bad_input(db):
    with pytest.raises(InvalidArgument, match="with conn.transaction"):
        outbox.add(db, "orders.placed", {"order_id": 1})  # autocommit, no transaction: a dual write
    with db.transaction():
        for subject in ("orders.*", "orders placed", "", "orders..placed"):
            with pytest.raises(InvalidArgument, match="not a NATS subject"):
                outbox.add(db, subject, {"order_id": 1})
        for payload in ("order 1", [1, 2], {"at": object()}, {"x": float("nan")}):
            with pytest.raises(InvalidArgument, match="Nothing was added"):
                outbox.add(db, "orders.placed", payload)
    assert outbox.stats(db) == outbox.OutboxStats(0, 0, 0.0)

    with pytest.raises(RuntimeError):
        with db.transaction():
            db.execute("INSERT INTO orders (total_cents) VALUES (100)")
            outbox.add(db, "orders.placed", {"order_id": 1})
            raise RuntimeError("payment declined")
    assert db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0, "a rolled-back order announced nothing"

    place_orders(db, "orders", 2)
    stats = outbox.stats(db)
    assert (stats.unsent, stats.sent) == (2, 0) and stats.oldest_unsent_age_s >= 0


# -- the relay -------------------------------------------------------------------------------------


def test_the_relay_publishes_every_row_once_in_order_and_stops_cleanly(db, nats_url, stream, start_relay):
    ids = place_orders(db, stream, 120)
    relay = start_relay(stream=stream, nats_url=nats_url, batch=25)
    wait_all_sent(db)
    later = place_orders(db, stream, 10)  # found by polling while it runs
    wait_all_sent(db)
    assert relay.terminate() == 0, relay.log_tail()

    stored = broker.messages(stream, url=nats_url, limit=10_000)
    assert [int(m.headers["Outbox-Id"]) for m in stored] == ids + later
    orders = [order_id for (order_id,) in db.execute("SELECT id FROM orders ORDER BY id")]
    assert [m.data["order_id"] for m in stored] == orders
    assert {m.subject for m in stored} == {f"{stream.lower()}.placed"}
    assert len({m.headers["Event-Id"] for m in stored}) == 130
    assert "stopped after finishing its batch" in relay.log()


@pytest.mark.parametrize("msg_id", [False, True], ids=["without_msg_id", "with_msg_id"])
def test_a_crash_between_publish_and_mark_sent(db, nats_url, stream, start_relay, msg_id):
    ids = place_orders(db, stream, 5)
    doomed = start_relay(stream=stream, nats_url=nats_url, msg_id=msg_id, crash_after=3)
    assert doomed.wait(60) == -signal.SIGKILL, doomed.log_tail()
    assert outbox.stats(db).unsent == 5, "nothing may be marked sent: the crash came before the mark"
    assert broker.count_messages(stream, url=nats_url) == 3, "but three rows were already published"

    start_relay(stream=stream, nats_url=nats_url, msg_id=msg_id)
    wait_all_sent(db)
    published = Counter(outbox_ids_in(stream, nats_url))
    if msg_id:
        assert published == Counter(ids), "with Nats-Msg-Id JetStream keeps one copy of each row"
    else:
        assert published == Counter(ids + ids[:3]), "without it the three rows are in the stream twice"


def test_sigterm_finishes_the_batch_in_hand_and_exits_0(db, nats_url, stream, start_relay):
    place_orders(db, stream, 100)
    relay = start_relay(stream=stream, nats_url=nats_url, batch=20, pace_s=0.05)  # a batch takes about 1 s
    wait_until(lambda: stored(stream, nats_url) > 0, 60, what="the first publish")
    relay.signal(signal.SIGTERM)
    assert relay.wait(60) == 0, relay.log_tail()
    sent = sent_ids(db)
    assert sorted(outbox_ids_in(stream, nats_url)) == sorted(sent), "published and marked sent must agree"
    assert len(sent) % 20 == 0, "a batch was cut short"
    assert outbox.stats(db).unsent > 0, "no new batch is claimed after SIGTERM"


def test_two_relays_share_the_work_without_publishing_a_row_twice(db, nats_url, stream, start_relay):
    ids = place_orders(db, stream, 200)
    relays = [start_relay(stream=stream, nats_url=nats_url, msg_id=False, batch=10, pace_s=0.002) for _ in range(2)]
    wait_all_sent(db, timeout=90)
    for relay in relays:
        assert relay.terminate() == 0, relay.log_tail()
    assert Counter(outbox_ids_in(stream, nats_url)) == Counter(ids), "SKIP LOCKED: each batch went to one relay"


def test_the_relay_reconnects_to_postgres_and_to_nats_by_itself(db, tmp_path, stream, start_relay):
    server = nats_server.NatsServer(tmp_path / "nats", survives_exit=False)  # ours alone: we stop it
    server.start()
    try:
        url = server.url()
        ids = place_orders(db, stream, 20)
        relay = start_relay(stream=stream, nats_url=url, batch=5, pace_s=0.02, publish_timeout_s=2)
        wait_until(lambda: sent_ids(db), 60, what="the first batch")

        # PostgreSQL drops the relay's connection (a failover, an idle timeout, a DBA).
        [[terminated]] = db.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                    "WHERE application_name = %s", [f"outbox-relay:{relay.pid}"]).fetchall()
        assert terminated == 1
        wait_all_sent(db)

        # NATS goes away and comes back on the same port while rows keep arriving.
        server.stop()
        ids += place_orders(db, stream, 10)
        server.start()
        wait_all_sent(db)
        assert relay.terminate() == 0, relay.log_tail()
        assert Counter(outbox_ids_in(stream, url)) == Counter(ids)
        log = relay.log()
        assert "PostgreSQL connection lost" in log and "NATS reconnected" in log
    finally:
        server.stop()


def test_bad_settings_fail_in_the_cell_and_a_missing_table_says_what_to_do(schema, nats_url, stream, start_relay):
    with pytest.raises(InvalidArgument, match="batch must be a whole number"):
        outbox.spawn(schema, stream=stream, nats_url=nats_url, batch=0)
    with pytest.raises(InvalidArgument, match="not a JetStream stream name"):
        outbox.spawn(schema, stream="orders.*", nats_url=nats_url)
    relay = start_relay(stream=stream, nats_url=nats_url)  # the schema has no outbox table
    assert relay.wait(60) == 2
    assert "course.core.outbox.install(conn)" in relay.log()
