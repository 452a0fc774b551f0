"""The course's NATS broker, as a client sees it: which server, and publish/streams from plain Python.

The server is chosen in this order, and said in one line (`describe()`):
  1. NATS_URL, when set: a server you run (e.g. docker-compose's `nats` service);
  2. otherwise our own single JetStream server on 127.0.0.1 (course/infra/nats_server.py), data in
     `.course/nats`, shared by the notebook kernel, relay processes and pytest: whoever comes first
     starts it, everyone else attaches. It outlives the process that started it (like the course's
     PostgreSQL) until `stop()`.

Lab 13's three servers that form one JetStream cluster are course/infra/nats_cluster.py.

The client is nats-py, which is asyncio only. Notebooks and plain scripts get small synchronous helpers
(`publish`, `ensure_stream`, `stream_info`, `count_messages`, `messages`). They run their coroutines on
one event loop in a helper thread, not with asyncio.run(): a Jupyter kernel already runs a loop in the
main thread, and asyncio.run() refuses to start a second one there. Async code can `await connect()`
and use nats-py directly.

Our servers let in only clients that show their token (`nats_server.token(servers)`: a lab 13 cluster's
own, else the checkout's); `connect()` shows it. A server you name in NATS_URL is yours: it is used as given.

    python -m course broker start|stop|status|url
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import nats
import nats.errors
import nats.js.errors
from nats.js import api

from course.errors import BrokerUnavailable, CourseError, StreamNotFound
from course.infra import nats_server, processes
DEFAULT_DUPLICATE_WINDOW_S = 120.0  # JetStream's own default: two minutes
MSG_ID = "Nats-Msg-Id"  # the header JetStream de-duplicates on, within the stream's duplicate window

# Answers that mean "not now, maybe in a moment": a server restarting, a leader being elected.
TRANSIENT = (nats.errors.Error, OSError, asyncio.TimeoutError)


# -- the server the course uses --------------------------------------------------------------------


def shared() -> nats_server.NatsServer:
    """The course's own server: one per checkout, files in `.course/nats`."""
    from course.infra.db import project_home

    return nats_server.NatsServer(project_home() / "nats")


def _redacted(urls: str) -> str:
    """NATS_URL for people to read: a token or password in it shown as ***."""
    def one(url: str) -> str:
        parts = urllib.parse.urlsplit(url.strip())
        if "@" not in parts.netloc:
            return url.strip()
        return parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]).geturl()
    return ",".join(map(one, urls.split(",")))


def _check_external(url: str) -> dict:
    try:
        info = nats_server.server_info(url)
    except (OSError, ValueError) as error:
        raise BrokerUnavailable.with_help(f"NATS_URL is set ({_redacted(url)}) but no NATS server answered there: {error}") from None
    if not info.get("jetstream"):
        raise BrokerUnavailable.with_help(f"NATS_URL is set ({_redacted(url)}) but that server runs without JetStream: start it with -js.")
    return info


def url() -> str:
    """The URL of the NATS server the course uses, started (or checked) on the way."""
    external = os.environ.get("NATS_URL")
    if external:
        _check_external(external)
        return external
    server = shared()
    found = server.url()
    if found and server.asks_for_token() and nats_server.healthy(server._state()["monitor_port"]):
        return found  # the common case, without taking the lock
    server.start()
    return server.url()


def start() -> str:
    """Start the course's server, or attach to it (or check NATS_URL); one line saying which."""
    return describe()


def describe() -> str:
    """One line saying which NATS server is in use (starting the course's own if needed)."""
    external = os.environ.get("NATS_URL")
    if external:
        info = _check_external(external)
        return f"NATS {info.get('version', '?')} with JetStream from NATS_URL ({_redacted(external)})"
    server = shared()
    how = server.start()
    return f"the course's NATS {nats_server.server_version()} with JetStream at {server.url()}: {how}, data in {server.store_dir}"


def status() -> str:
    """A line for `python -m course.infra.broker status`; never starts anything."""
    external = os.environ.get("NATS_URL")
    if external:
        try:
            return describe()
        except BrokerUnavailable as error:
            return str(error).splitlines()[0]
    return shared().status()


def stop() -> str:
    if os.environ.get("NATS_URL"):
        return "NATS_URL is set: that server is yours to stop; nothing done."
    return "stopped" if shared().stop() else "was not running"


# -- the client, synchronously ------------------------------------------------------------------------


_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: threading.Thread | None = None
_loop_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """One event loop for all sync helpers, running forever in a daemon thread of its own."""
    global _loop, _loop_thread
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="course-nats-loop", daemon=True)
            thread.start()
            _loop, _loop_thread = loop, thread
        return _loop


def run(coroutine: Awaitable, timeout: float | None = 60.0):
    """Run a coroutine to its end from synchronous code, also inside a Jupyter kernel; return its result."""
    if threading.current_thread() is _loop_thread:
        raise RuntimeError("broker.run() was called from the broker's own event loop: `await` the coroutine instead.")
    future = asyncio.run_coroutine_threadsafe(coroutine, _background_loop())
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        if future.done():  # the coroutine's own timeout (the same class since Python 3.11): pass it on
            raise
        future.cancel()
        raise TimeoutError(f"the NATS call did not finish within {timeout} s") from None


Servers = str | Sequence[str] | None


def server_list(servers: Servers = None) -> list[str]:
    """URLs as nats-py wants them: a list. None means the course's server; a string may hold several, comma-separated."""
    if servers is None:
        servers = url()
    if isinstance(servers, str):
        servers = servers.split(",")
    return [s.strip() for s in servers if s.strip()]


async def _silent(error: Exception) -> None:
    """nats-py logs every failed (re)connect attempt with a traceback; our callers see the exception anyway."""


def _users_own(servers: list[str]) -> bool:
    """Servers all named in NATS_URL: the user's own, to be used as given (with no token of ours)."""
    theirs = set(server_list(os.environ.get("NATS_URL") or []))
    return bool(theirs) and set(servers) <= theirs


async def connect(servers: Servers = None, **options) -> nats.aio.client.Client:
    """A nats-py connection to our server (or `servers`), failing within seconds when none answers.

    Pass nats-py options to change that, e.g. `max_reconnect_attempts=-1` to keep trying forever.
    """
    servers = server_list(servers)
    settings = dict(servers=servers, name=f"course:{os.getpid()}", connect_timeout=2,
                    reconnect_time_wait=0.2, max_reconnect_attempts=1, error_cb=_silent)
    if not _users_own(servers):
        settings["token"] = nats_server.token(servers)  # our servers let nobody in without theirs
    return await nats.connect(**{**settings, **options})


async def _using_jetstream(servers: Servers, work: Callable, timeout: float):
    connection = await connect(servers)
    try:
        return await work(connection.jetstream(timeout=timeout))
    finally:
        await connection.close()


def encode(payload) -> bytes:
    """What goes on the wire: bytes as they are, text as UTF-8, anything else as JSON."""
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode()
    return json.dumps(payload, separators=(",", ":")).encode()


def decode(data: bytes):
    """The reverse of `encode`, as far as it can tell: JSON if it parses, else text, else bytes."""
    try:
        return json.loads(data)
    except ValueError:
        pass
    try:
        return data.decode()
    except UnicodeDecodeError:
        return data


def publish(subject: str, payload=b"", *, msg_id: str | None = None, stream: str | None = None,
            headers: dict[str, str] | None = None, url: Servers = None, timeout: float = 5.0,
            retry_for: float = 0.0) -> api.PubAck:
    """Publish one message to JetStream and wait for the stream to store it; return its PubAck.

    `msg_id` sets the Nats-Msg-Id header: publishing the same id again within the stream's duplicate
    window stores nothing new (the ack says `duplicate=True`). That is what makes retrying safe: with
    `retry_for=30`, a publish that failed or whose ack was lost (a leader killed mid-publish) is sent
    again, with the same id, until one is acknowledged or 30 s have passed. A stream that exists but
    does not answer (its replicas electing a leader) is waited for up to `timeout` even without it.
    """
    all_headers = dict(headers or {})
    if msg_id is not None:
        all_headers[MSG_ID] = str(msg_id)

    async def send(js):
        return await js.publish(subject, encode(payload), stream=stream, headers=all_headers or None)

    deadline = time.monotonic() + retry_for  # the caller's: any failure is sent again until then
    stream_silent_until = None  # ours: how long to wait for a stream that exists but does not answer
    while True:
        try:
            return run(_using_jetstream(url, send, timeout), timeout=timeout + 10)
        except nats.js.errors.NoStreamResponseError:
            # "No responders" means nobody received the message, so sending it again is always safe. It is a
            # mistake when no stream takes the subject; when one does, its replicas are between leaders or
            # this server has not yet heard of it: wait for it, at least `timeout`, as for a slow ack.
            if _stream_for(subject, url) is None:
                raise StreamNotFound(f"No stream takes the subject {subject!r}: create one with "
                                     f"broker.ensure_stream('NAME', [{subject!r}]).") from None
            stream_silent_until = stream_silent_until or max(deadline, time.monotonic() + timeout)
            if time.monotonic() + 0.2 > stream_silent_until:
                raise BrokerUnavailable(f"The stream that takes {subject!r} did not answer in time: is a "
                                        "majority of its replicas up?") from None
            time.sleep(0.2)
        except TRANSIENT:
            if time.monotonic() + 0.2 > deadline:
                raise
            time.sleep(0.2)


def ensure_stream(name: str, subjects: Sequence[str], *, replicas: int = 1,
                  duplicate_window: float = DEFAULT_DUPLICATE_WINDOW_S, url: Servers = None,
                  timeout: float = 10.0) -> api.StreamInfo:
    """Create the stream, or change an existing one to these subjects, replicas and duplicate window."""
    if isinstance(subjects, str):
        subjects = [subjects]
    wanted = dict(subjects=list(subjects), num_replicas=replicas, duplicate_window=duplicate_window,
                  storage=api.StorageType.FILE)

    async def work(js):
        try:
            current = (await js.stream_info(name)).config
        except nats.js.errors.NotFoundError:
            await js.add_stream(name=name, **wanted)
        else:
            if not all(getattr(current, key) == value for key, value in wanted.items()):
                await js.update_stream(current.evolve(**wanted))
        # A replicated stream answers publishes only once its replicas have elected a leader: wait for
        # it here, or the first publish meets "no responders" and looks like a missing stream.
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            info = await js.stream_info(name)
            if replicas == 1 or (info.cluster and info.cluster.leader):
                return info
            if asyncio.get_running_loop().time() > deadline:
                raise BrokerUnavailable(f"stream {name!r} has no leader after {timeout:g} s: are a majority "
                                        f"of its {replicas} replicas up?")
            await asyncio.sleep(0.05)

    # A cluster that has just formed can leave a request unanswered (its metadata leader changing hands):
    # asking again is safe, as the work looks before it creates. A hang is still reported, once the
    # bound (stretched on a loaded machine) has passed.
    bound = processes.HangBound(6 * timeout)
    while True:
        try:
            return run(_using_jetstream(url, work, timeout), timeout=timeout + 10)
        except TRANSIENT:
            if bound.passed():
                raise
            time.sleep(0.2)


def _stream_for(subject: str, url: Servers) -> str | None:
    """The name of the stream that takes `subject`, None if none does, "?" if the servers cannot say now."""
    async def work(js):
        try:
            return await js.find_stream_name_by_subject(subject)
        except nats.js.errors.NotFoundError:
            return None

    try:
        return run(_using_jetstream(url, work, 2.0), timeout=12)
    except TRANSIENT:
        return "?"


async def _stream_info(js, name: str) -> api.StreamInfo:
    try:
        return await js.stream_info(name)
    except nats.js.errors.NotFoundError:
        raise StreamNotFound(f"There is no stream {name!r} on this server: create it with "
                             f"broker.ensure_stream({name!r}, [...subjects]) or start the relay, "
                             "which creates its stream.") from None


def stream_info(name: str, *, url: Servers = None, timeout: float = 5.0) -> api.StreamInfo:
    return run(_using_jetstream(url, lambda js: _stream_info(js, name), timeout), timeout=timeout + 10)


def count_messages(stream: str, *, url: Servers = None) -> int:
    """How many messages the stream holds now."""
    return stream_info(stream, url=url).state.messages


def delete_stream(name: str, *, url: Servers = None) -> bool:
    """Delete the stream and its messages; False if there was none."""
    async def work(js):
        try:
            return await js.delete_stream(name)
        except nats.js.errors.NotFoundError:
            return False

    return run(_using_jetstream(url, work, 10.0), timeout=20)


@dataclass(frozen=True)
class StoredMessage:
    seq: int
    subject: str
    headers: dict[str, str]
    data: object  # as `encode` wrote it: JSON decoded, else text, else the raw bytes
    time: datetime | None


def messages(stream: str, *, url: Servers = None, limit: int = 1000) -> list[StoredMessage]:
    """The stream's messages in order (the first `limit`), to look at in a notebook or a test."""
    async def work(js):
        state = (await _stream_info(js, stream)).state
        found = []
        if state.messages == 0:
            return found
        for seq in range(state.first_seq, state.last_seq + 1):
            if len(found) >= limit:
                break
            try:
                raw = await js.get_msg(stream, seq)
            except nats.js.errors.NotFoundError:
                continue  # deleted
            data = decode(raw.data or b"")
            found.append(StoredMessage(raw.seq, raw.subject, dict(raw.headers or {}), data, raw.time))
        return found

    return run(_using_jetstream(url, work, 10.0), timeout=None)


# -- command line ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    import argparse

    top = argparse.ArgumentParser(prog="python -m course broker", description="The course's NATS server.")
    top.add_argument("action", choices=["start", "stop", "status", "url"])
    args = top.parse_args(argv)
    try:
        print({"start": start, "stop": stop, "status": status, "url": url}[args.action]())
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
