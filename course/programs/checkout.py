"""Tiffin's checkout: a real web app, in its own process, that takes orders and sends receipts.

    POST  /orders            {"customer_id": 1, "items": [...]} or {"customer_id": 1, "total_cents": 1250}
                             201 with the order
    GET   /orders/<id>
    GET   /customers/<id>
    PATCH /customers/<id>    {"address": "..."}
    GET   /health

It sends the receipt one of two ways, chosen with --mode:

    thread   store the order, answer the customer, then send the receipt from a background thread of
             this process: what lab 01 takes apart. A deploy (SIGTERM) or a crash (SIGKILL) ends the
             process; the receipts its threads had not sent yet are gone, and nobody is told.
    queue    store the order and a `send_receipt` job {"order_id": ...} in one transaction, and answer.
             A worker sends the receipt (course.programs.tiffin:handlers); the job outlives this process.

    python -m course.programs.checkout --schema lab01 --provider http://127.0.0.1:PORT --mode thread --port 0
"""

from __future__ import annotations

import argparse
import sys
import threading
import time

import psycopg
from psycopg_pool import ConnectionPool

from course.infra import db
from course.core import queue
from course.errors import CourseError, InvalidArgument
from course.programs import tiffin
from course.programs.email_provider import send_email
from course.programs.http import HttpError, JsonHandler, Reply, Server, ServerProcess, call, route, serve, start_server

MODES = ("thread", "queue")


class CheckoutHandler(JsonHandler):
    server: "CheckoutServer"

    @route("GET", "/health")
    def health(self):
        try:
            with self.server.pool.connection(timeout=5) as conn:
                conn.execute("SELECT 1 FROM orders LIMIT 0")
        except Exception as error:  # not ready: say why, and let the caller poll again
            raise HttpError(503, f"the database is not answering: {error}") from None
        return 200, {"ok": True, "mode": self.server.mode, "schema": self.server.schema}

    @route("POST", "/orders")
    def place_order(self):
        request = self.json_body()
        order_fields = {"items": request.get("items"), "total_cents": request.get("total_cents")}
        if self.server.mode == "queue":
            return 201, self._store_order_and_job(request.get("customer_id"), order_fields)
        order = self._store_order(request.get("customer_id"), order_fields)
        self.reply(201, order)  # the customer sees "order placed" now...
        # ...and the receipt follows from a thread of this process. Nothing waits for that thread: not
        # the customer, and not a graceful shutdown, which waits for requests, and this is not one now.
        threading.Thread(target=self.server.send_receipt_later, args=(order["id"],), daemon=True,
                         name=f"receipt-{order['id']}").start()
        return None

    def _store_order(self, customer_id, order_fields) -> dict:
        with self.server.pool.connection() as conn:
            return _unless_invalid(lambda: tiffin.place_order(conn, customer_id, **order_fields))

    def _store_order_and_job(self, customer_id, order_fields) -> dict:
        with self.server.pool.connection() as conn, conn.transaction():
            # One transaction: the order and its receipt job are stored together, or neither is.
            order = _unless_invalid(lambda: tiffin.place_order(conn, customer_id, **order_fields))
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})  # ids, not data
            return order

    @route("GET", r"/orders/(?P<order_id>\d+)")
    def get_order(self, order_id: str):
        with self.server.pool.connection() as conn:
            found = tiffin.order(conn, int(order_id))
        if found is None:
            raise HttpError(404, f"there is no order {order_id}")
        return 200, found

    @route("GET", r"/customers/(?P<customer_id>\d+)")
    def get_customer(self, customer_id: str):
        with self.server.pool.connection() as conn:
            found = tiffin.customer(conn, int(customer_id))
        if found is None:
            raise HttpError(404, f"there is no customer {customer_id}")
        return 200, found

    @route("PATCH", r"/customers/(?P<customer_id>\d+)")
    def change_address(self, customer_id: str):
        request = self.json_body()
        if set(request) != {"address"}:
            raise HttpError(422, f'send {{"address": "..."}} and nothing else; got the fields {sorted(request)}')
        with self.server.pool.connection() as conn:
            changed = _unless_invalid(lambda: tiffin.change_address(conn, int(customer_id), request["address"]))
        if changed is None:
            raise HttpError(404, f"there is no customer {customer_id}")
        return 200, changed


def _unless_invalid(action):
    """Run `action`; the customer's mistakes (InvalidArgument) become a 422 with the same words."""
    try:
        return action()
    except InvalidArgument as error:
        raise HttpError(422, str(error)) from None


class CheckoutServer(Server):
    def __init__(self, port: int, *, pool: ConnectionPool, schema: str, mode: str, provider_url: str,
                 render_s: float, receipt_cpu_s: float = 0.0):
        super().__init__(CheckoutHandler, port)
        self.pool = pool
        self.schema = schema
        self.mode = mode
        self.provider_url = provider_url
        self.render_s = render_s
        self.receipt_cpu_s = receipt_cpu_s  # of render_s, the part spent computing (its PDF), in this process

    def send_receipt_later(self, order_id: int) -> None:
        """Thread mode's receipt: the same steps as the worker's job, minus everything that makes a job
        safe. One try, no retry, no record: when it fails, or the process ends, the receipt is gone."""
        try:
            with self.pool.connection() as conn:
                details = tiffin.receipt_details(conn, order_id)
            tiffin.draw_pdf(self.receipt_cpu_s)
            receipt = tiffin.render_receipt(details, max(0.0, self.render_s - self.receipt_cpu_s))
            message_id = send_email(self.provider_url, receipt.to, receipt.subject, receipt.body)
            _log(f"receipt for order {order_id} sent ({message_id})")
        except Exception as error:
            _log(f"receipt for order {order_id} lost: {type(error).__name__}: {error}")


def _log(line: str) -> None:
    sys.stderr.write(f"{time.strftime('%H:%M:%S')} {line}\n")


# -- the handle notebooks and checks hold -------------------------------------------------------------


class CheckoutApp(ServerProcess):
    """Tiffin's checkout, running in a process of its own.

        app = CheckoutApp.start(schema="lab01", provider_url=provider.url, mode="thread")
        order = app.place_order(1, total_cents=1250)
        app.kill()        # SIGKILL: an out-of-memory kill        app.terminate()   # SIGTERM: a deploy
    """

    @classmethod
    def start(cls, *, schema: str, provider_url: str, mode: str = "thread", receipt_render_s: float | None = None,
              receipt_cpu_s: float = 0.0, install: bool = True, name: str = "checkout", drain_timeout: float = 10.0,
              timeout: float = 30.0) -> "CheckoutApp":
        """Start the app on 127.0.0.1 and a free port; return once it answers.

        `receipt_cpu_s` of each receipt's rendering is CPU work in this process (thread mode), the rest
        waiting. With install=True (the default) Tiffin's and the queue's tables are created in `schema` first
        (the schema itself must exist: course.infra.db.reset_schema(name) makes one).
        """
        if mode not in MODES:
            raise InvalidArgument(f"mode must be one of {', '.join(MODES)}; got {mode!r}. Nothing was started.")
        render_s = tiffin.render_seconds() if receipt_render_s is None else receipt_render_s
        if isinstance(render_s, bool) or not isinstance(render_s, (int, float)) or not 0 <= render_s <= 600:
            raise InvalidArgument(f"receipt_render_s is in seconds, 0 to 600; got {render_s!r}. Nothing was started.")
        if isinstance(receipt_cpu_s, bool) or not isinstance(receipt_cpu_s, (int, float)) or not 0 <= receipt_cpu_s <= render_s:
            raise InvalidArgument(f"receipt_cpu_s is the part of receipt_render_s ({render_s:g} s) spent computing, in "
                                  f"seconds; got {receipt_cpu_s!r}. Nothing was started.")
        if install:
            _install(schema)
        args = ["--schema", schema, "--dsn", db.conninfo(schema), "--provider", provider_url, "--mode", mode,
                "--port", "0", "--receipt-render-s", str(render_s), "--receipt-cpu-s", str(receipt_cpu_s),
                "--drain-timeout", str(drain_timeout)]
        child, url = start_server(name, "course.programs.checkout", args, timeout=timeout)
        return cls(url, child)

    @classmethod
    def attach(cls, url: str) -> "CheckoutApp":
        return cls(url.rstrip("/"))

    def place_order(self, customer_id: int, *, items: list | None = None, total_cents: int | None = None,
                    timeout: float = 10.0) -> dict:
        """POST /orders; the order as stored. InvalidArgument with the app's reason if it refused."""
        data = {"customer_id": customer_id}
        if items is not None:
            data["items"] = items
        if total_cents is not None:
            data["total_cents"] = total_cents
        return self._checked(call("POST", f"{self.url}/orders", data, timeout=timeout))

    def order(self, order_id: int) -> dict | None:
        return self._found(call("GET", f"{self.url}/orders/{order_id}"))

    def customer(self, customer_id: int) -> dict | None:
        return self._found(call("GET", f"{self.url}/customers/{customer_id}"))

    def change_address(self, customer_id: int, address: str) -> dict:
        """PATCH /customers/<id>: the customer moved."""
        return self._checked(call("PATCH", f"{self.url}/customers/{customer_id}", {"address": address}))

    def _found(self, reply: Reply) -> dict | None:
        return None if reply.status == 404 else self._checked(reply)

    def _checked(self, reply: Reply) -> dict:
        if reply.ok:
            return reply.data
        if reply.status in (400, 404, 422):
            raise InvalidArgument(f"the checkout refused: {reply.error}")
        raise CourseError(f"the checkout at {self.url} answered {reply.status}: {reply.error}")


def _install(schema: str) -> None:
    with db.connect(schema) as conn:
        exists = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()
        if not exists:
            raise InvalidArgument(f"there is no schema {schema!r}: create it with "
                                  f"course.infra.db.reset_schema({schema!r}) first. Nothing was started.")
        tiffin.install(conn)


# -- the program -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.programs.checkout",
                                     description="Tiffin's checkout: takes orders, sends receipts.")
    parser.add_argument("--schema", required=True, help="the schema with Tiffin's tables (and the jobs table)")
    parser.add_argument("--dsn", help="connection string (default: the course database, in --schema)")
    parser.add_argument("--provider", required=True, help="the email provider's URL")
    parser.add_argument("--mode", choices=MODES, default="thread", help="how receipts are sent")
    parser.add_argument("--port", type=int, default=0, help="0: any free port (the URL is printed)")
    parser.add_argument("--receipt-render-s", type=float, default=None,
                        help=f"seconds a receipt takes to render (default: ${tiffin.RENDER_S_ENV} or "
                             f"{tiffin.DEFAULT_RENDER_S})")
    parser.add_argument("--receipt-cpu-s", type=float, default=0.0,
                        help="of the rendering, seconds of CPU work in this process (its PDF); the rest is waiting")
    parser.add_argument("--drain-timeout", type=float, default=10.0,
                        help="on SIGTERM, seconds to wait for requests in flight")
    parser.add_argument("--url-file", help="write the URL here once listening")
    args = parser.parse_args(argv)
    render_s = tiffin.render_seconds() if args.receipt_render_s is None else args.receipt_render_s
    conninfo = args.dsn or db.conninfo(args.schema)
    problem = _missing_tables(conninfo, args.schema)
    if problem:
        print(f"checkout: {problem}", file=sys.stderr)
        return 2
    pool = ConnectionPool(conninfo, min_size=1, max_size=10, kwargs={"autocommit": True},
                          check=ConnectionPool.check_connection, open=True, name="checkout")
    try:
        server = CheckoutServer(args.port, pool=pool, schema=args.schema, mode=args.mode,
                                provider_url=args.provider, render_s=render_s, receipt_cpu_s=args.receipt_cpu_s)
        return serve(server, name=f"checkout ({args.mode} mode, schema {args.schema})", url_file=args.url_file,
                     drain_timeout=args.drain_timeout)
    finally:
        pool.close(timeout=1.0)


def _missing_tables(conninfo: str, schema: str) -> str | None:
    """Why the app cannot start in this schema, or None."""
    with psycopg.connect(conninfo, autocommit=True, connect_timeout=db.CONNECT_TIMEOUT_S) as conn:
        current, tables = conn.execute(
            "SELECT current_schema(), (SELECT count(*) FROM pg_tables"
            "                          WHERE schemaname = %s AND tablename IN ('orders', 'jobs'))",
            (schema,)).fetchone()
    if current != schema:
        return (f"the connection works in schema {current!r}, not {schema!r}: does {schema!r} exist? "
                f"(course.infra.db.reset_schema({schema!r}) creates it)")
    if tables != 2:
        return (f"schema {schema!r} has no orders or jobs table: run course.programs.tiffin.install(conn) on "
                "a connection to it first (CheckoutApp.start does this for you)")
    return None


if __name__ == "__main__":
    raise SystemExit(main())
