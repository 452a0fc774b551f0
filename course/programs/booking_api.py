"""StayHub's booking API (lab 12): the web app a guest's checkout goes through, in a process of its own.

    BookingApi.start(schema=..., mode=...)    POST /bookings: "inline" (everything in the request),
                                              "jobs" (the side work enqueued), or your own checkout function
    api.book(guest_id, room_id, nights)       one checkout, timed the way the guest feels it

    python -m course.programs.booking_api --schema lab12 --dsn DSN --mode inline --provider URL --channel-manager URL

The checkout itself, both ways, is StayHub's (course/programs/stayhub.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg

from course.infra import db, processes
from course.errors import InvalidArgument
from course.programs.http import HttpError, JsonHandler, Server, ServerProcess, call, route, serve, start_server
from course.programs.stayhub import CheckoutFailed, checkout_inline, checkout_with_jobs, install, since


MODES = ("inline", "jobs", "custom")


class BookingHandler(JsonHandler):
    server: "BookingServer"

    @route("GET", "/health")
    def health(self):
        try:
            with self.server.pool.connection(timeout=5) as conn:
                conn.execute("SELECT 1 FROM bookings LIMIT 0")
        except Exception as error:  # not ready: say why, and let the caller poll again
            raise HttpError(503, f"the database is not answering: {error}") from None
        return 200, {"ok": True, "mode": self.server.mode, "schema": self.server.schema}

    @route("POST", "/bookings")
    def book(self):
        request = self.json_body()
        args = (request.get("guest_id"), request.get("room_id"), request.get("nights", 2))
        started = time.monotonic()
        with self.server.pool.connection() as conn:
            try:
                if self.server.mode == "inline":
                    booking_id, timings = checkout_inline(conn, *args, provider_url=self.server.provider_url,
                                                          channel_manager_url=self.server.channel_manager_url)
                else:
                    booking_id, timings = self.server.checkout(conn, *args), {}
            except InvalidArgument as error:
                raise HttpError(422, str(error)) from None
            except CheckoutFailed as failure:
                return 502, {"error": str(failure), "booking_id": failure.booking_id, "paid": True,
                             "failed_step": failure.step, "timings": failure.timings,
                             "seconds": since(started)}
        if not isinstance(booking_id, int) or isinstance(booking_id, bool):
            raise HttpError(500, f"the checkout function returned {booking_id!r:.60}, not a booking id")
        return 201, {"booking_id": booking_id, "status": "confirmed", "timings": timings,
                     "seconds": since(started)}


class BookingServer(Server):
    def __init__(self, port: int, *, pool, schema: str, mode: str, checkout: Callable,
                 provider_url: str | None, channel_manager_url: str | None):
        super().__init__(BookingHandler, port)
        self.pool = pool
        self.schema = schema
        self.mode = mode
        self.checkout = checkout
        self.provider_url = provider_url
        self.channel_manager_url = channel_manager_url


@dataclass(frozen=True)
class CheckoutReply:
    status: int  # 201 confirmed, 502 paid but an error page, ...
    seconds: float  # what the guest waited, measured by the client
    booking_id: int | None
    timings: dict = field(default_factory=dict)  # the server's seconds per step (inline mode)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == 201


class BookingApi(ServerProcess):
    """StayHub's booking API, running in a process of its own.

        api = BookingApi.start(schema="lab12", mode="inline", provider_url=..., channel_manager_url=...)
        api = BookingApi.start(schema="lab12", mode="jobs")
        api = BookingApi.start(schema="lab12", checkout=my_checkout)   # your function runs in the server
        reply = api.book(guest_id=1, room_id=1, nights=2)                # reply.seconds, reply.booking_id
    """

    @classmethod
    def start(cls, *, schema: str, mode: str = "jobs", checkout: Callable | None = None,
              provider_url: str | None = None, channel_manager_url: str | None = None, install: bool = True,
              name: str = "booking-api", timeout: float = 120.0) -> "BookingApi":
        if checkout is not None:
            mode = "custom"
        if mode not in MODES:
            raise InvalidArgument(f"mode must be one of {', '.join(MODES)}; got {mode!r}. Nothing was started.")
        if mode == "inline" and not (provider_url and channel_manager_url):
            raise InvalidArgument("inline mode sends the email and syncs the channel manager itself: give it "
                                  "provider_url= and channel_manager_url=. Nothing was started.")
        if install:
            with db.connect(schema) as conn:
                install_tables(conn, schema)
        args = ["--schema", schema, "--dsn", db.conninfo(schema), "--mode", mode, "--port", "0"]
        if provider_url:
            args += ["--provider", provider_url]
        if channel_manager_url:
            args += ["--channel-manager", channel_manager_url]
        pickle_path = None
        if checkout is not None:
            pickle_path = processes.pickle_for_child(checkout, f"{name}-checkout")
            args += ["--checkout-pickle", str(pickle_path)]
        try:
            child, url = start_server(name, "course.programs.booking_api", args, timeout=timeout)
        finally:
            if pickle_path is not None:
                pickle_path.unlink(missing_ok=True)
        return cls(url, child)

    def book(self, guest_id: int = 1, room_id: int = 1, nights: int = 2, *, timeout: float = 30.0) -> CheckoutReply:
        """POST /bookings, timed the way the guest feels it: from sending to the full answer."""
        started = time.perf_counter()
        reply = call("POST", f"{self.url}/bookings", {"guest_id": guest_id, "room_id": room_id, "nights": nights},
                     timeout=timeout)
        seconds = round(time.perf_counter() - started, 3)
        data = reply.data if isinstance(reply.data, dict) else {}
        return CheckoutReply(reply.status, seconds, data.get("booking_id"), data.get("timings") or {},
                             None if reply.ok else reply.error)


def install_tables(conn: psycopg.Connection, schema: str) -> None:
    exists = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()
    if not exists:
        raise InvalidArgument(f"there is no schema {schema!r}: create it with course.infra.db.reset_schema({schema!r}) "
                              "first. Nothing was started.")
    install(conn)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.programs.booking_api", description="StayHub's booking API.")
    parser.add_argument("--schema", required=True)
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--mode", choices=MODES, default="jobs")
    parser.add_argument("--provider")
    parser.add_argument("--channel-manager")
    parser.add_argument("--checkout-pickle", help="a cloudpickled checkout(conn, guest_id, room_id, nights)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--url-file")
    args = parser.parse_args(argv)
    import fpdf  # noqa: F401  (imported now, not during the first guest's checkout)
    from psycopg_pool import ConnectionPool

    if args.mode == "custom":
        if not args.checkout_pickle:
            print("booking api: --mode custom needs --checkout-pickle", file=sys.stderr)
            return 2
        checkout = processes.unpickle(args.checkout_pickle)
    else:
        checkout = checkout_with_jobs
    # With a learner's checkout in class grading, this server runs in a sandbox: its way to the database
    # is the sandbox's gate (DATABASE_URL), not the socket --dsn names
    pool = ConnectionPool(db.reached_here(args.dsn), min_size=1, max_size=10, kwargs={"autocommit": True},
                          check=ConnectionPool.check_connection, open=True, name="booking-api")
    try:
        server = BookingServer(args.port, pool=pool, schema=args.schema, mode=args.mode, checkout=checkout,
                               provider_url=args.provider, channel_manager_url=args.channel_manager)
        return serve(server, name=f"StayHub booking API ({args.mode}, schema {args.schema})", url_file=args.url_file)
    finally:
        pool.close(timeout=1.0)


if __name__ == "__main__":
    raise SystemExit(main())
