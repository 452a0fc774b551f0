"""Calls both ways over one channel, nested as deep as they go, from as many threads as there are.

Each side is a Peer. A call is a message {"k": "call", "chain": C, "id": N, ...} answered by
{"k": "ret" or "err", "chain": C, "id": N, ...}. A *chain* is one conversation: it starts when a thread
of one side calls the other while serving nothing (a fresh chain, named by the side that started it),
and every call made while that call is being served — either way, at any depth — carries the same
chain. On each side one thread at a time works for a chain: the thread that started it, waiting for
its answer, or the thread serving it; a call arriving on the chain is served by that thread, in its
wait. So the learner's `conn.execute` inside a check's call to `claim` runs on the check's own thread,
as it would in the notebook, and two checks calling at once (two "workers") are two chains that never
wait for each other.

Who reads the socket: a thread waiting for its reply reads it itself when nobody else is (no thread
switch on the way), and hands what is not for it to the thread it is for. A peer that `listens` (the
answer's side: it must hear a new call at any time) has a reader thread too, which steps aside as
soon as a thread waits. A call on a chain this side has no thread for is a new conversation: an idle
server thread takes it (or a new one, up to `max_served` at once; past that the call is refused, so
a peer cannot make this side start threads without end).

What a call carries, and what serving it means, belongs to the side: `serve(message)` returns the
reply's fields (say {"value": ...}) or raises; `error_reply(error)` turns that into {"error": ...}.
"""

from __future__ import annotations

import collections
import contextvars
import itertools
import os
import queue
import select
import threading
from collections.abc import Callable

from course.grading.boundary.wire import Channel, Closed, WireError

_CHAIN: contextvars.ContextVar[tuple[int, str] | None] = contextvars.ContextVar("boundary_chain", default=None)
_GONE = {"k": "gone"}


class Peer:
    def __init__(self, channel: Channel, *, side: str, serve: Callable[[dict], dict],
                 error_reply: Callable[[BaseException], dict], listen: bool = False, max_served: int = 32,
                 name: str = "boundary"):
        self.channel, self.side, self.name = channel, side, name
        self._serve, self._error_reply = serve, error_reply
        self._lock = threading.Lock()
        self._boxes: dict[str, collections.deque] = {}  # chain -> messages for its thread here
        self._waits: dict[str, threading.Condition] = {}  # chain -> its thread's wait, while it waits
        self._reading = False
        self._chains = itertools.count(1)
        self._ids = itertools.count(1)
        self._served = threading.BoundedSemaphore(max_served)
        self._idle: list[queue.SimpleQueue] = []  # the work queues of server threads waiting for a chain
        self.closed: str | None = None  # why the channel ended, once it has
        self._listener = None
        if listen:
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_w, False)
            self._listening = threading.Condition(self._lock)
            self._listener = threading.Thread(target=self._listen, name=f"{name}-listener", daemon=True)

    def start(self) -> "Peer":
        if self._listener is not None:
            self._listener.start()
        return self

    # -- calling -----------------------------------------------------------------------------------------

    def request(self, fields: dict) -> dict:
        """Send a call and wait for its reply (serving the calls that arrive on its chain meanwhile)."""
        current = _CHAIN.get()
        if current is not None and current[0] == id(self) and current[1] in self._boxes:
            return self._call(current[1], fields)
        chain = f"{self.side}{next(self._chains)}"
        with self._lock:
            if self.closed is not None:
                raise Closed(self.closed)
            self._boxes[chain] = collections.deque()
        token = _CHAIN.set((id(self), chain))
        try:
            return self._call(chain, fields)
        finally:
            _CHAIN.reset(token)
            with self._lock:
                self._boxes.pop(chain, None)

    def _call(self, chain: str, fields: dict) -> dict:
        call_id = next(self._ids)
        if self.closed is not None:
            raise Closed(self.closed)
        self.channel.send({**fields, "k": "call", "chain": chain, "id": call_id})
        while True:
            message = self._next(chain)
            if message is _GONE:
                raise Closed(self.closed or "the channel ended")
            if message["k"] == "call":
                self._answer(message)
            elif message.get("id") == call_id:
                return message
            # a reply to nothing we wait for: a confused or hostile peer; ignore it

    def _next(self, chain: str) -> dict:
        """The next message for this chain: from its box, or read from the socket by this thread."""
        with self._lock:
            box = self._boxes[chain]
            wait = self._waits[chain] = threading.Condition(self._lock)
            try:
                while True:
                    if box:
                        return box.popleft()
                    if self.closed is not None:
                        return _GONE
                    if not self._reading:
                        self._reading = True
                        break
                    self._poke_listener()
                    wait.wait()
            finally:
                del self._waits[chain]
                if not self._reading:  # we leave without reading: the socket needs someone else
                    self._wake_one()
        try:
            while True:
                message = self._receive()
                if message is _GONE or message["chain"] == chain:
                    return message
                with self._lock:
                    refusal = self._route(message)
                if refusal:
                    self._refuse_busy(refusal)
        finally:
            with self._lock:
                self._reading = False
                self._wake_one()

    def _wake_one(self) -> None:
        """The socket is free: a waiting thread takes it (else the listener). Called with the lock held."""
        for wait in self._waits.values():
            wait.notify()
            return
        if self._listener is not None:
            self._listening.notify()

    def _poke_listener(self) -> None:
        if self._listener is not None:
            try:
                os.write(self._wake_w, b".")
            except (BlockingIOError, OSError):
                pass  # a poke is already pending

    # -- routing what is read ------------------------------------------------------------------------------

    def _receive(self) -> dict:
        try:
            message = self.channel.receive()
            chain, kind = message.get("chain"), message.get("k")
            if type(chain) is not str or kind not in ("call", "ret", "err") or type(message.get("id")) is not int:
                raise WireError("a message without a chain, a kind or an id")
            return message
        except Closed as error:
            self._end(str(error) or "the channel ended")
        except WireError as error:
            self._end(f"the other side broke the protocol: {error}")
        except Exception as error:  # noqa: BLE001 — never let a reader die silently
            self._end(f"the channel failed: {type(error).__name__}: {error}")
        return _GONE

    def _route(self, message: dict) -> dict | None:
        """Give a message to its chain's thread, or a new call to a server thread. Called with the lock
        held; returns a call to refuse (outside the lock) when too many are served at once."""
        chain = message["chain"]
        box = self._boxes.get(chain)
        if box is not None:
            box.append(message)
            wait = self._waits.get(chain)
            if wait is not None:
                wait.notify()
            return None
        if message["k"] != "call":
            return None  # a reply nobody waits for
        if chain.startswith(self.side):
            raise WireError("a call on a chain of ours that has ended")
        if not self._served.acquire(blocking=False):
            return message
        self._boxes[chain] = collections.deque()
        if self._idle:
            self._idle.pop().put(message)
        else:
            work: queue.SimpleQueue = queue.SimpleQueue()
            work.put(message)
            threading.Thread(target=self._server, args=(work,), name=f"{self.name}-server", daemon=True).start()
        return None

    def _end(self, why: str) -> None:
        with self._lock:
            if self.closed is None:
                self.closed = why
            for wait in self._waits.values():
                wait.notify()
            for work in self._idle:
                work.put(_GONE)
            self._idle = []
            if self._listener is not None:
                self._listening.notify()
        self.channel.close()

    # -- serving -----------------------------------------------------------------------------------------

    def _server(self, work: queue.SimpleQueue) -> None:
        while True:
            message = work.get()
            if message is _GONE:
                return
            chain = message["chain"]
            token = _CHAIN.set((id(self), chain))
            try:
                self._answer(message)
            except Closed:
                return
            finally:
                _CHAIN.reset(token)
                with self._lock:
                    self._boxes.pop(chain, None)
                self._served.release()
            with self._lock:
                if self.closed is not None:
                    return
                self._idle.append(work)

    def _answer(self, message: dict) -> None:
        try:
            reply = {"k": "ret", **self._serve(message)}
        except Closed:
            raise
        except BaseException as error:  # noqa: BLE001 — whatever serving raised, the caller hears it
            try:
                reply = {"k": "err", **self._error_reply(error)}
            except BaseException as inner:  # noqa: BLE001 — an error we could not even describe
                reply = {"k": "err", "error": _plain_error(f"the reply could not be written: {type(inner).__name__}")}
        try:
            self.channel.send({**reply, "chain": message["chain"], "id": message["id"]})
        except WireError as error:  # the value was too big: say so instead
            self.channel.send({"k": "err", "chain": message["chain"], "id": message["id"],
                               "error": _plain_error(str(error))})

    def _refuse_busy(self, message: dict) -> None:
        try:
            self.channel.send({"k": "err", "chain": message["chain"], "id": message["id"],
                               "error": _plain_error("too many calls at once across the grading boundary")})
        except Closed:
            pass

    # -- the listener (a peer that must hear new calls at any time) ----------------------------------------

    def _listen(self) -> None:
        while True:
            with self._lock:
                while self.closed is None and (self._reading or self._waits):
                    self._listening.wait()
                if self.closed is not None:
                    return
                self._reading = True
            try:
                ready, _, _ = select.select([self.channel.sock, self._wake_r], [], [])
                if self._wake_r in ready:
                    os.read(self._wake_r, 4096)
                message = self._receive() if self.channel.sock in ready else None
                refusal = None
                if message is not None and message is not _GONE:
                    with self._lock:
                        refusal = self._route(message)
                if refusal:
                    self._refuse_busy(refusal)
                if message is _GONE:
                    return
            except (OSError, ValueError):  # the socket was closed under us
                self._end("the channel was closed")
                return
            finally:
                with self._lock:
                    self._reading = False
                    self._wake_one()

    def wait(self) -> None:
        """Until the channel ends (a listening peer)."""
        if self._listener is not None:
            self._listener.join()

    def close(self) -> None:
        self._end("closed by this side")


def _plain_error(message: str) -> dict:
    return {"$": "exc", "cls": "builtins.RuntimeError", "args": [message], "msg": message}
