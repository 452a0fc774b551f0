"""The outbox pattern: announce a change to other systems without a dual write.

Writing an order to PostgreSQL and then publishing "order placed" to NATS is two writes with no
transaction around them: a crash between them loses the message, or publishes one for an order that
rolled back. The outbox makes it one write. The message goes into an `outbox` table in the same
transaction as the order; a separate relay process publishes unsent rows and marks them sent.

    install(conn)                   create the outbox table (course/core/sql/outbox.sql)
    add(conn, subject, payload)     inside the business transaction
    stats(conn)                     backlog and the age of the oldest unsent message
    spawn(schema, ...)              a relay as a child process (a notebook's handle on it)
    python -m course.core.outbox relay --schema S --stream ORDERS ...     the relay itself

The relay promises at least once, not exactly once. It publishes, then marks the row sent; if it dies
between the two, the row is published again after a restart. With `Nats-Msg-Id` set to the row's
event id, JetStream drops that second copy, but only within the stream's duplicate window (two
minutes by default). Consumers must still be idempotent, for two reasons:
  * the window is finite: a relay that comes back after longer, or a row re-sent by hand, makes a
    message JetStream has forgotten about, and it is stored again;
  * de-duplication covers the way into the stream, not the way out: a consumer that handles a message
    and dies before acknowledging it gets it again (that is what AckWait is for).
So a consumer records the event ids it has handled (a unique key), in the same transaction as its
effect, and skips an id it has seen.

Every message carries the headers `Event-Id` (the row's event_id, a UUID: what consumers de-duplicate
on), `Outbox-Id` (the row's id, to trace it back) and, unless the relay runs with --no-msg-id,
`Nats-Msg-Id` = the event id. The UUID rather than the row id, because ids start again at 1 when a lab
drops its schema, and JetStream would take a fresh row 1 for the old one it saw a minute ago.

Order: rows go out in id order, one batch at a time. Two caveats, both worth knowing. Ids are taken
when a row is inserted, not when it commits, so a long transaction can commit an older id after a
newer one was sent. And a second relay (SKIP LOCKED lets it run safely) sends other batches at the
same time: use one relay per outbox when consumers rely on order.

Why one module: the table, the writer's add() and the relay that empties it are one pattern; the relay's
guarantees (at least once, in order per subject) are the table's columns read back.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import nats.js.errors
import psycopg
from psycopg.pq import TransactionStatus
from psycopg.rows import namedtuple_row

from course.infra import broker
from course.core import sql
from course.core import arguments
from course.core.payloads import to_json
from course.errors import CourseError, InvalidArgument, first_line

log = logging.getLogger("course.core.outbox")

SUBJECT = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")  # a NATS subject one can publish to: no wildcards
STREAM = re.compile(r"[A-Za-z0-9_-]{1,64}")
DB_DISCONNECTED = (psycopg.OperationalError, psycopg.InterfaceError)


@dataclass(frozen=True)
class OutboxStats:
    unsent: int
    sent: int
    oldest_unsent_age_s: float  # what a "the relay is stuck" alert watches


# -- the table -------------------------------------------------------------------------------------


def install(conn: psycopg.Connection) -> None:
    """Create the outbox table in the connection's schema (if it is not there yet)."""
    conn.execute(sql.query("outbox", "install"))


def _subject(subject: object) -> str:
    if not isinstance(subject, str) or len(subject) > 255 or not SUBJECT.fullmatch(subject):
        raise InvalidArgument(
            f"subject {subject!r} is not a NATS subject to publish to: use words of letters, digits, '_' or "
            "'-' joined by dots, with no spaces or wildcards (e.g. 'orders.placed'). Nothing was added."
        )
    return subject


def _payload_json(payload: object) -> str:
    return to_json(payload, error=InvalidArgument, nothing_done="Nothing was added.",
                   advice="Announce the change with ids and the few facts consumers need, not whole documents.")


def add(conn: psycopg.Connection, subject: str, payload: Mapping) -> int:
    """Store a message to publish to `subject`; return its row id.

    Call it in the transaction that makes the change it announces, so both commit or neither does:

        with conn.transaction():
            order_id = conn.execute("INSERT INTO orders ... RETURNING id").fetchone()[0]
            outbox.add(conn, "orders.placed", {"order_id": order_id})
    """
    if conn.closed:
        raise InvalidArgument("The connection is closed: open a new one with course.infra.db.connect(). Nothing was added.")
    if conn.autocommit and conn.info.transaction_status == TransactionStatus.IDLE:
        raise InvalidArgument(
            "outbox.add() needs the transaction that makes the change it announces, and none is open: on "
            "this autocommit connection the message would commit on its own, which is the dual write all "
            "over again. Wrap the change and the add in `with conn.transaction():`. Nothing was added."
        )
    params = {"subject": _subject(subject), "payload": _payload_json(payload)}
    return conn.execute(sql.query("outbox", "add"), params).fetchone()[0]


def stats(conn: psycopg.Connection) -> OutboxStats:
    unsent, sent, oldest = conn.execute(sql.query("outbox", "stats")).fetchone()
    return OutboxStats(unsent, sent, oldest)


# -- the relay -------------------------------------------------------------------------------------


@dataclass
class RelaySettings:
    stream: str = "ORDERS"
    subjects: list[str] | None = None  # the stream's subjects if the relay creates it; default '<stream>.>'
    msg_id: bool = True  # set Nats-Msg-Id, so JetStream drops a re-published row within its window
    batch: int = 10  # rows per transaction: locked while they are published, marked sent together
    poll_interval_s: float = 0.2  # how often to look for new rows when the outbox is empty
    pace_s: float = 0.0  # a pause after each publish, to watch a batch go out in a lab
    crash_after: int | None = None  # SIGKILL ourselves after this many publishes, before marking them sent
    replicas: int = 1
    duplicate_window_s: float = broker.DEFAULT_DUPLICATE_WINDOW_S
    publish_timeout_s: float = 5.0

    def __post_init__(self) -> None:
        if not isinstance(self.stream, str) or not STREAM.fullmatch(self.stream):
            raise InvalidArgument(f"stream {self.stream!r} is not a JetStream stream name: use letters, digits, "
                                  "'_' or '-' (e.g. 'ORDERS').")
        if self.subjects is None:
            self.subjects = [f"{self.stream.lower()}.>"]
        if isinstance(self.subjects, str):
            self.subjects = [self.subjects]
        arguments.whole("batch", self.batch, low=1, high=10_000)
        arguments.whole("replicas", self.replicas, low=1, high=5)
        if self.crash_after is not None:
            arguments.whole("crash_after", self.crash_after, low=1, high=10**9)
        for kind in ("pace_s", "duplicate_window_s"):
            arguments.seconds(kind, getattr(self, kind), allow_zero=True)
        for kind in ("poll_interval_s", "publish_timeout_s"):  # 0 would spin, or give up before trying
            arguments.seconds(kind, getattr(self, kind))


@dataclass
class RelayCounters:
    published: int = 0  # acknowledged by JetStream, duplicates included
    duplicates: int = 0  # acknowledged as "already have it" (same Nats-Msg-Id within the window)
    batches: int = 0
    publish_failures: int = 0
    db_reconnects: int = 0


class PublishFailed(Exception):
    def __init__(self, row, error: BaseException, hint: str = ""):
        super().__init__(f"row {row.id} ({row.subject}): {type(error).__name__}: {error}{hint}")


@dataclass
class Relay:
    """Moves unsent outbox rows to JetStream, in order, batch by batch, until SIGTERM.

    Each batch is one transaction: claim rows (FOR UPDATE SKIP LOCKED), publish them one by one, mark
    the published ones sent, commit. When publishing fails part-way, the rows already acknowledged are
    still marked sent and the rest wait for the next try. Lost connections to PostgreSQL or NATS are
    retried with backoff, for as long as it takes.
    """

    conninfo: str
    nats_servers: list[str]
    settings: RelaySettings = field(default_factory=RelaySettings)

    def __post_init__(self) -> None:
        self.counters = RelayCounters()
        self.name = f"outbox-relay:{os.getpid()}"  # application_name in pg_stat_activity, name in NATS
        self._stopping: asyncio.Event | None = None
        self._db: psycopg.AsyncConnection | None = None
        self._nats = None
        self._stream_ready = False
        self._stream_subjects: list[str] = []

    def run(self) -> int:
        """Relay until SIGTERM or SIGINT; return the exit code (0 after finishing the batch in hand)."""
        return asyncio.run(self._main())

    async def _main(self) -> int:
        self._stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self._stopping.set)
        s = self.settings
        log.info("%s: stream %s %s, Nats-Msg-Id %s, batch %d%s", self.name, s.stream, s.subjects,
                 "on" if s.msg_id else "OFF", s.batch,
                 f", will SIGKILL itself after {s.crash_after} publish(es)" if s.crash_after else "")
        try:
            self._nats = await self._connect_nats()
            delay = 0.1
            while self._nats is not None and not self._stopping.is_set():
                try:
                    if self._db is None:
                        self._db = await self._connect_db()
                        continue
                    if not self._stream_ready:
                        await self._ensure_stream()
                    claimed = await self._relay_one_batch()
                    delay = 0.1
                    if claimed < s.batch:
                        await self._pause(s.poll_interval_s)
                except DB_DISCONNECTED as error:
                    log.warning("%s: PostgreSQL connection lost (%s); reconnecting", self.name, first_line(error))
                    await self._db.close()
                    self._db = None
                    self.counters.db_reconnects += 1
                except PublishFailed as failure:
                    self.counters.publish_failures += 1
                    log.warning("%s: publish failed, will retry in %.1f s: %s", self.name, delay, failure)
                    await self._pause(delay)
                    delay = min(delay * 2, 2.0)
                except broker.TRANSIENT as error:  # creating the stream failed: NATS is away
                    log.warning("%s: NATS not ready (%s: %s); retrying", self.name, type(error).__name__, error)
                    await self._pause(delay)
                    delay = min(delay * 2, 2.0)
            log.info("%s: stopped after finishing its batch; %s", self.name, self.counters)
            return 0
        except psycopg.errors.UndefinedTable:
            log.error("%s: there is no outbox table here (%s); create it with course.core.outbox.install(conn) "
                      "in that schema and start the relay again.", self.name, _schema_of(self.conninfo))
            return 2
        finally:
            if self._db is not None:
                await self._db.close()
            if self._nats is not None:
                await self._nats.close()

    async def _relay_one_batch(self) -> int:
        """One transaction: claim, publish in order, mark what was acknowledged. Returns rows claimed."""
        async with self._db.transaction():
            cursor = self._db.cursor(row_factory=namedtuple_row)
            await cursor.execute(sql.query("outbox", "claim"), {"limit": self.settings.batch})
            rows = await cursor.fetchall()
            published, failure = await self._publish_in_order(rows)
            if published:
                await self._db.execute(sql.query("outbox", "mark_sent"), {"ids": published})
        # committed: the acknowledged rows are marked, the others unlocked for the next try
        if rows:
            self.counters.batches += 1
            log.debug("%s: batch of %d, %d published", self.name, len(rows), len(published))
        if failure:
            raise failure
        return len(rows)

    async def _publish_in_order(self, rows) -> tuple[list[int], PublishFailed | None]:
        """Publish until the first failure: a later row must not overtake an earlier one."""
        s = self.settings
        js = self._nats.jetstream(timeout=s.publish_timeout_s)
        published = []
        for row in rows:
            headers = {"Event-Id": str(row.event_id), "Outbox-Id": str(row.id)}
            if s.msg_id:
                headers[broker.MSG_ID] = str(row.event_id)
            try:
                ack = await js.publish(row.subject, broker.encode(row.payload), stream=s.stream, headers=headers)
            except broker.TRANSIENT as error:
                return published, PublishFailed(row, error, self._hint(error, row))
            published.append(row.id)
            self.counters.published += 1
            if ack.duplicate:
                self.counters.duplicates += 1
                log.info("%s: row %d was already in %s (seq %d): JetStream dropped the copy", self.name, row.id,
                         s.stream, ack.seq)
            self._crash_if_asked(row)
            if s.pace_s:
                await asyncio.sleep(s.pace_s)
        return published, None

    def _hint(self, error: BaseException, row) -> str:
        """The failures a retry will not fix without you: the row's subject is not the stream's."""
        if isinstance(error, (nats.js.errors.NoStreamResponseError, nats.js.errors.BadRequestError)):
            return (f" (does stream {self.settings.stream}, which takes {self._stream_subjects}, take "
                    f"{row.subject!r}? Fix the stream or the row; the relay keeps trying)")
        return ""

    def _crash_if_asked(self, row) -> None:
        """The failure the outbox lab is about: published, not yet marked sent, and gone."""
        if self.settings.crash_after and self.counters.published >= self.settings.crash_after:
            log.warning("%s: crash injected: SIGKILL after publishing row %d, before marking it sent", self.name, row.id)
            for handler in logging.getLogger().handlers:
                handler.flush()
            os.kill(os.getpid(), signal.SIGKILL)

    # -- connections -------------------------------------------------------------------------------

    async def _pause(self, seconds: float) -> None:
        """Sleep, but wake at once on SIGTERM."""
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    async def _connect_db(self) -> psycopg.AsyncConnection | None:
        delay = 0.1
        while not self._stopping.is_set():
            try:
                return await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True, connect_timeout=5,
                                                             application_name=self.name)
            except DB_DISCONNECTED as error:
                log.warning("%s: PostgreSQL not reachable (%s); retrying in %.1f s", self.name, first_line(error), delay)
                await self._pause(delay)
                delay = min(delay * 2, 2.0)
        return None

    async def _connect_nats(self):
        """Connect, trying for as long as it takes (or until SIGTERM); nats-py then reconnects by itself."""
        last_logged = [0.0]

        async def on_error(error: Exception) -> None:
            if time.monotonic() - last_logged[0] > 10:  # once per 10 s, not once per attempt
                last_logged[0] = time.monotonic()
                log.warning("%s: NATS: %s: %s (retrying)", self.name, type(error).__name__, error)

        async def on_disconnect() -> None:
            if not self._stopping.is_set():  # closing at the end disconnects too: not worth a warning
                log.warning("%s: NATS connection lost; reconnecting", self.name)

        async def on_reconnect() -> None:
            log.info("%s: NATS reconnected", self.name)

        connecting = asyncio.ensure_future(broker.connect(
            self.nats_servers, name=self.name, max_reconnect_attempts=-1, reconnect_time_wait=0.5,
            error_cb=on_error, disconnected_cb=on_disconnect, reconnected_cb=on_reconnect))
        stopping = asyncio.ensure_future(self._stopping.wait())
        await asyncio.wait({connecting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if connecting.done():
            return connecting.result()
        connecting.cancel()
        return None

    async def _ensure_stream(self) -> None:
        """Create the stream if it is missing. An existing stream is left as it is: it may be yours."""
        s = self.settings
        js = self._nats.jetstream(timeout=s.publish_timeout_s)
        try:
            info = await js.stream_info(s.stream)
        except nats.js.errors.NotFoundError:
            info = await js.add_stream(name=s.stream, subjects=s.subjects, num_replicas=s.replicas,
                                       duplicate_window=s.duplicate_window_s)
            log.info("%s: created stream %s for %s", self.name, s.stream, s.subjects)
        self._stream_subjects = info.config.subjects
        log.info("%s: stream %s takes %s; duplicate window %.0f s", self.name, s.stream, info.config.subjects,
                 info.config.duplicate_window)
        self._stream_ready = True


def _schema_of(conninfo: str) -> str:
    match = re.search(r"search_path=([^,\s']+)", conninfo)
    return f"schema {match.group(1)}" if match else "schema public"


# -- starting one --------------------------------------------------------------------------------------


def _relay_args(settings: RelaySettings) -> list[str]:
    s = settings
    args = ["--stream", s.stream, "--batch", str(s.batch), "--poll-interval-s", str(s.poll_interval_s),
            "--pace-s", str(s.pace_s), "--replicas", str(s.replicas), "--duplicate-window-s", str(s.duplicate_window_s),
            "--publish-timeout-s", str(s.publish_timeout_s)]
    for subject in s.subjects:
        args += ["--subjects", subject]
    if not s.msg_id:
        args.append("--no-msg-id")
    if s.crash_after:
        args += ["--crash-after", str(s.crash_after)]
    return args


def spawn(schema: str | None = None, *, stream: str = "ORDERS", subjects: Sequence[str] | None = None,
          nats_url: str | Sequence[str] | None = None, msg_id: bool = True, batch: int = 10,
          poll_interval_s: float = 0.2, pace_s: float = 0.0, crash_after: int | None = None, replicas: int = 1,
          duplicate_window_s: float = broker.DEFAULT_DUPLICATE_WINDOW_S, publish_timeout_s: float = 5.0,
          name: str = "relay",
          env: dict[str, str] | None = None):
    """Start `python -m course.core.outbox relay ...` as a child process (a course.infra.processes.Child).

    Settings are checked here, so a mistake shows in the notebook cell, not in a log. `nats_url`
    defaults to the course's NATS server, resolved (and started) now: the relay never chooses again.
    """
    from course.infra import db, nats_server, processes

    settings = RelaySettings(stream=stream, subjects=list(subjects) if subjects else None, msg_id=msg_id,
                             batch=batch, poll_interval_s=poll_interval_s, pace_s=pace_s, crash_after=crash_after,
                             replicas=replicas, duplicate_window_s=duplicate_window_s,
                             publish_timeout_s=publish_timeout_s)
    if nats_url is None:
        nats_url = broker.url()
    servers = nats_url if isinstance(nats_url, str) else ",".join(nats_url)
    args = ["relay", "--dsn", db.conninfo(schema), "--nats", servers, *_relay_args(settings)]
    handed = nats_server.handed(broker.server_list(servers))  # a cluster's own token, when it is one of ours
    return processes.python(name, "course.core.outbox", *args, env={**handed, **(env or {})})


# -- command line ---------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m course.core.outbox", description="The outbox relay.")
    commands = top.add_subparsers(dest="command", required=True)
    p = commands.add_parser("relay", help="publish unsent outbox rows to JetStream and mark them sent")
    p.add_argument("--schema", help="the schema holding the outbox table (default: public)")
    p.add_argument("--dsn", help="connection string (default: the course database)")
    p.add_argument("--nats", help="NATS URL(s), comma-separated (default: the course's NATS server)")
    p.add_argument("--stream", default="ORDERS", help="the JetStream stream to publish into (created if missing)")
    p.add_argument("--subjects", action="append", help="subjects of the stream if it is created (default: <stream>.>)")
    p.add_argument("--no-msg-id", action="store_true", help="do not set Nats-Msg-Id (to see the duplicate)")
    p.add_argument("--batch", type=int, default=10, help="rows per transaction")
    p.add_argument("--poll-interval-s", type=float, default=0.2, help="seconds between looks at an empty outbox")
    p.add_argument("--pace-s", type=float, default=0.0, help="seconds to wait after each publish")
    p.add_argument("--crash-after", type=int, help="SIGKILL the relay after N publishes, before marking them sent")
    p.add_argument("--replicas", type=int, default=1, help="replicas of the stream if it is created")
    p.add_argument("--duplicate-window-s", type=float, default=broker.DEFAULT_DUPLICATE_WINDOW_S,
                   help="the stream's duplicate window in seconds, if it is created")
    p.add_argument("--publish-timeout-s", type=float, default=5.0, help="seconds to wait for JetStream's ack")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        from course.infra import db

        settings = RelaySettings(stream=args.stream, subjects=args.subjects, msg_id=not args.no_msg_id,
                                 batch=args.batch, poll_interval_s=args.poll_interval_s, pace_s=args.pace_s,
                                 crash_after=args.crash_after, replicas=args.replicas,
                                 duplicate_window_s=args.duplicate_window_s, publish_timeout_s=args.publish_timeout_s)
        conninfo = args.dsn or db.conninfo(args.schema)
        servers = broker.server_list(args.nats)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return Relay(conninfo, servers, settings).run()


if __name__ == "__main__":
    raise SystemExit(main())
