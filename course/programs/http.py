"""The HTTP pieces the email provider and the checkout app share, standard library only.

    server side   JsonHandler (routes, JSON in and out) and Server (counts requests in flight, so a
                  SIGTERM can wait for them and for nothing else), run by serve()
    client side   call(): one request, one Reply; never follows proxies (every server here is local)
    processes     ServerProcess: a server started as a child process, ready once /health answers

Every server listens on 127.0.0.1 on a port the operating system picks, and writes its URL to the file
named by --url-file once it listens, so whoever started it knows where it is without guessing ports.

Why one module: the server and the client speak the same small JSON-over-HTTP dialect, and ServerProcess
starts the server and asks it with the client whether it is ready; each half is a test of the other.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import sys
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from course.infra import ports, processes
from course.errors import CourseError

HOST = "127.0.0.1"


# -- server side -----------------------------------------------------------------------------------


class HttpError(Exception):
    """Raise in a route to answer with this status and {"error": message}."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})


def route(method: str, pattern: str):
    """Mark a JsonHandler method as the answer to `method` on paths matching `pattern` (a regex).

    Named groups in the pattern arrive as keyword arguments: r"/orders/(?P<order_id>\\d+)".
    """
    def mark(fn):
        fn.route = (method, re.compile(pattern))
        return fn

    return mark


class JsonHandler(BaseHTTPRequestHandler):
    """A request handler whose routes take and give JSON. Subclasses mark methods with @route.

    A route returns (status, data) or (status, data, headers); or calls self.reply() itself and
    returns None, when it has more to do after the client has its answer.
    """

    # HTTP/1.0: one request per connection. A kept-alive idle connection would look like a request in
    # flight to Server.drain() and hold up every graceful shutdown.
    protocol_version = "HTTP/1.0"
    routes: list[tuple[str, re.Pattern, str]] = []

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        marked = {}
        for klass in reversed(cls.__mro__):  # a subclass keeps (or overrides) its parents' routes
            marked.update({name: fn.route for name, fn in vars(klass).items() if hasattr(fn, "route")})
        cls.routes = [(method, pattern, name) for name, (method, pattern) in marked.items()]

    # Every method goes through the same dispatch.
    def do_GET(self): self._dispatch("GET")
    def do_POST(self): self._dispatch("POST")
    def do_PUT(self): self._dispatch("PUT")
    def do_PATCH(self): self._dispatch("PATCH")
    def do_DELETE(self): self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        self.query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        try:
            answer, arguments = self._find_route(method, parts.path)
            result = answer(**arguments)
            if result is not None:  # None: the route replied itself (to do more after the reply)
                status, data, *headers = result
                self.reply(status, data, headers[0] if headers else None)
        except HttpError as error:
            self.reply(error.status, {"error": error.message}, error.headers)
        except Exception as error:  # a bug in a route must not kill the server, and must be visible
            traceback.print_exc(file=sys.stderr)
            self.reply(500, {"error": f"internal error: {type(error).__name__}: {error}"})

    _replied = False

    def _find_route(self, method: str, path: str):
        allowed = []
        for route_method, pattern, name in self.routes:
            match = pattern.fullmatch(path)
            if match and route_method == method:
                return getattr(self, name), match.groupdict()
            if match:
                allowed.append(route_method)
        if allowed:
            raise HttpError(405, f"{method} {path} is not supported; use {' or '.join(allowed)}.",
                            {"Allow": ", ".join(allowed)})
        known = ", ".join(f"{m} {_readable(p)}" for m, p, _ in self.routes)
        raise HttpError(404, f"no endpoint {method} {path}; this server answers: {known}")

    def json_body(self, *, optional: bool = False) -> dict:
        """The request body as a JSON object ({} if `optional` and empty); 400 with a reason otherwise."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise HttpError(400, f"Content-Length {self.headers['Content-Length']!r} is not a number.") from None
        raw = self.rfile.read(length) if length > 0 else b""
        if not raw and optional:
            return {}
        if not raw:
            raise HttpError(400, "the request has no body: send a JSON object "
                                 "(Content-Type: application/json).")
        try:
            body = json.loads(raw)
        except ValueError as error:
            raise HttpError(400, f"the body is not valid JSON ({error}): send a JSON object.") from None
        if not isinstance(body, dict):
            raise HttpError(400, f"the body is JSON but a {type(body).__name__}, not an object: "
                                 'send {"field": value, ...}.')
        return body

    def reply(self, status: int, data: Any, headers: Mapping[str, str] | None = None) -> None:
        if self._replied:  # a route that replied itself failed afterwards: the log has the traceback
            return
        self._replied = True
        payload = json.dumps(data, default=_jsonable).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting; what we did for it stays done

    def log_message(self, format: str, *args) -> None:
        # One short line per request into the process's log file (never the notebook).
        sys.stderr.write(f"{time.strftime('%H:%M:%S')} {format % args}\n")


def _readable(pattern: re.Pattern) -> str:
    """'/orders/(?P<order_id>\\d+)' as '/orders/<order_id>', for error messages."""
    return re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", pattern.pattern)


def _jsonable(value: object) -> object:
    """Datetimes as ISO 8601 (what JavaScript and pandas read back); anything else as its str()."""
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


class Server(ThreadingHTTPServer):
    """A threaded HTTP server on 127.0.0.1 that knows how many requests it is answering."""

    daemon_threads = True  # threads die with the process: what a killed server does to its work
    request_queue_size = 128  # a lab that hammers the server should meet our 503s, not a full backlog

    def __init__(self, handler: type[JsonHandler], port: int = 0):
        choices = (ports.allowed() or [0]) if port == 0 else [port]  # graded: only its notebook's block
        for i, choice in enumerate(choices):
            try:
                super().__init__((HOST, choice), handler)
                break
            except OSError:
                if i == len(choices) - 1:
                    raise
        self._in_flight = 0
        self._changed = threading.Condition()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}"

    def process_request(self, request, client_address):
        with self._changed:
            self._in_flight += 1
        try:
            super().process_request(request, client_address)  # starts the request's thread
        except BaseException:
            self._request_done()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._request_done()

    def _request_done(self) -> None:
        with self._changed:
            self._in_flight -= 1
            self._changed.notify_all()

    @property
    def in_flight(self) -> int:
        """Requests being answered right now (a /health that asks is one of them)."""
        with self._changed:
            return self._in_flight

    def drain(self, timeout: float) -> int:
        """Wait until no request is being answered (or `timeout` passes); return how many still are."""
        with self._changed:
            self._changed.wait_for(lambda: self._in_flight == 0, timeout)
            return self._in_flight


def serve(server: Server, *, name: str, url_file: str | None = None, drain_timeout: float = 10.0) -> int:
    """Answer requests until SIGTERM or SIGINT, then stop like a production server does.

    Stop accepting, wait for the requests in flight, exit. Only requests are waited for: a thread the
    app started for work after its response (a receipt, say) dies with the process.
    """
    stopping = threading.Event()
    received: list[str] = []  # which signal asked it to stop: its log says so (a deploy sends SIGTERM, Ctrl-C SIGINT)

    def stop(signum, _frame):
        received.append(signal.Signals(signum).name)
        stopping.set()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    threading.Thread(target=server.serve_forever, name="http", daemon=True).start()
    print(f"{name} listening on {server.url} (pid {os.getpid()})", flush=True)
    if url_file:
        _write_atomically(Path(url_file), server.url)
    while not stopping.wait(0.5):
        pass
    print(f"{name}: {received[0]} received: stopping; waiting up to {drain_timeout:.0f} s for requests in flight",
          flush=True)
    server.shutdown()
    server.server_close()
    left = server.drain(drain_timeout)
    print(f"{name}: stopped" + (f" with {left} request(s) unanswered" if left else ""), flush=True)
    return 0


def _write_atomically(path: Path, text: str) -> None:
    """Readers see no file or the whole file, never half of it."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)


# -- client side -----------------------------------------------------------------------------------


class ServiceUnreachable(CourseError, ConnectionError):
    """Nothing answered at the address (refused, reset, or the connection dropped mid-request)."""


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    data: Any  # the JSON body, or the text when it is not JSON

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def error(self) -> str:
        """The server's own explanation of a failure."""
        if isinstance(self.data, dict) and "error" in self.data:
            return str(self.data["error"])
        return f"HTTP {self.status}: {self.data!r:.200}"


def call(method: str, url: str, data: Any = None, *, headers: Mapping[str, str] | None = None,
         timeout: float = 10.0) -> Reply:
    """One HTTP request with a JSON body (if `data` is given); any status comes back as a Reply.

    Raises TimeoutError when no answer came within `timeout` seconds (the server may still act on the
    request!) and ServiceUnreachable when nothing answered at all.
    """
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ServiceUnreachable(f"{url!r} is not an http:// URL; expected something like http://127.0.0.1:8025.")
    body = None if data is None else json.dumps(data).encode()
    sent_headers = {"Accept": "application/json", **(headers or {})}
    if body is not None:
        sent_headers["Content-Type"] = "application/json"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=sent_headers)
        response = connection.getresponse()
        raw = response.read()
        reply_headers = {name.lower(): value for name, value in response.getheaders()}
        status = response.status
    except TimeoutError:
        raise
    except (OSError, http.client.HTTPException) as error:
        raise ServiceUnreachable(
            f"nothing answered {method} {url}: {error or type(error).__name__}. Is the server running?"
        ) from None
    finally:
        connection.close()
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = raw.decode(errors="replace")
    return Reply(status, reply_headers, parsed)


# -- a server in a process of its own -----------------------------------------------------------------


class ServerProcess:
    """A server we started as a child process: where it listens, its pid, and the ways to stop it."""

    def __init__(self, url: str, child: processes.Child | None = None):
        self.url = url
        self.child = child  # None when we only attached to a server someone else started

    def __repr__(self) -> str:
        state = "attached" if self.child is None else ("running" if self.alive() else "stopped")
        return f"<{type(self).__name__} {self.url} pid={self.pid} {state}>"

    @property
    def pid(self) -> int | None:
        return self.child.pid if self.child else None

    def alive(self) -> bool:
        return self.child is not None and self.child.alive()

    def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM (a rolling deploy): the server finishes the requests in flight and exits."""
        return self._own_child().terminate(timeout)

    def kill(self) -> int:
        """SIGKILL (an out-of-memory kill): gone at once, with everything in its memory."""
        return self._own_child().kill()

    def stop(self) -> int | None:
        """Stop it if it still runs (gracefully); fine to call twice."""
        if self.alive():
            return self.terminate()
        return None

    def log_tail(self, lines: int = 20) -> str:
        return self._own_child().log_tail(lines)

    def health(self) -> dict:
        """What GET /health says (ServiceUnreachable when nothing answers)."""
        reply = call("GET", f"{self.url}/health", timeout=10.0)
        if reply.status != 200:
            raise CourseError(f"{self.url}/health answered {reply.status}: {reply.error}")
        return reply.data

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def _own_child(self) -> processes.Child:
        if self.child is None:
            raise CourseError(f"{self.url} was started by someone else: this handle cannot signal it.")
        return self.child


def start_server(name: str, module: str, args: list[str], *, env: Mapping[str, str] | None = None,
                 timeout: float = 30.0) -> tuple[processes.Child, str]:
    """Run `python -m module args --url-file F`; return once GET /health answers 200.

    If it dies or stays silent, it is killed and the error shows the end of its log.
    """
    # A server running code under test may write only the exchange folder; any other server's URL file
    # stays where code under test cannot rewrite it (a check must not be sent to a server of theirs).
    folder = processes.exchange_dir() if processes.untrusted_specs_in(args, env or {}) else processes.log_dir()
    url_file = folder / f"{name}-{os.getpid()}-{time.monotonic_ns()}.url"
    child = processes.python(name, module, *args, "--url-file", str(url_file), env=dict(env or {}))
    deadline = time.monotonic() + timeout
    try:
        url = processes.wait_until(lambda: _announced_url(child, url_file, name), timeout,
                                   what=f"{name} listening")
        processes.wait_until(lambda: _healthy(child, url, name), max(0.1, deadline - time.monotonic()),
                             what=f"{name} answering {url}/health")
    except TimeoutError as error:
        child.kill()
        raise CourseError(f"{error}; its log ends with:\n{child.log_tail()}") from None
    except BaseException:
        if child.alive():
            child.kill()
        raise
    finally:
        url_file.unlink(missing_ok=True)
    return child, url


def _announced_url(child: processes.Child, url_file: Path, name: str) -> str | None:
    _still_running(child, name)
    return url_file.read_text() if url_file.exists() else None


def _healthy(child: processes.Child, url: str, name: str) -> bool:
    _still_running(child, name)
    try:
        return call("GET", f"{url}/health", timeout=2.0).status == 200
    except (TimeoutError, ServiceUnreachable):
        return False


def _still_running(child: processes.Child, name: str) -> None:
    if not child.alive():
        code = child.wait()
        raise CourseError(f"{name} exited with code {code} before it was ready; its log ends with:\n"
                          f"{child.log_tail()}")
