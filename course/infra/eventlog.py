"""An event log ("a history"): what several processes did, one JSON object a line, in a file they
only ever append to.

Each event is one O_APPEND write of one whole line, so processes writing at once never interleave, and a
SIGKILL right after a write loses nothing; one during a write leaves at most a torn last line, which
reading skips. The fault injector's workers, lab 13's consumers and producers and lab 10's rush handlers
write their histories this way, and a check or a notebook reads them back.

    record(path, kind=..., **fields)   append one event, stamped with the time and this process's pid
    read(path, SomeEvent)              every whole event, as SomeEvent(**fields), in time order
    new_file(prefix)                   a fresh, empty history in the folder children write (processes.exchange_dir)
    timeline(events, describe)         one line per event, in seconds from the first
    Kept(prefix)                       a history only this process writes: each child it starts gets a
                                       pipe of its own (kept.feed(**stamp)), and its lines are stamped
                                       with the pid this process started and who it is
    feeding(histories, **stamp)        one child's pipes into several Kept histories at once

A history that decides a verdict about code under test is a `Kept` one: a file children append to could
take lines from any process that finds it (in class grading every sandboxed child may write the exchange
folder). Through a feed, a child's record() goes down its own pipe; the trusted side writes the line,
with the child's pid and `stamp` (a worker's slot) put over whatever the line said. What a child can
still forge is its own lines (the code under test runs in it): what it says it did, never as another.

`Event` is what every history's events have; a history's own event type adds what its events are
about (a job and its attempt, a message and its delivery) as keyword-only fields.
"""

from __future__ import annotations

import json
import os
import select
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from course.infra import processes

E = TypeVar("E")


@dataclass(frozen=True)
class Event:
    t: float  # seconds: unix time, or since the start a history counts from (record's `since`)
    pid: int  # the process that wrote it
    kind: str  # what happened: started, claimed, received, acked, killed, ...


def record(path: str | Path | None, *, since: float | None = None, **fields) -> None:
    """Append one event in one O_APPEND write; its time is now (minus `since`, when given) and its pid
    this process's, unless `fields` say otherwise. Nothing happens when `path` is None."""
    if path is None:
        return
    now = time.time()
    stamp = {"t": round(now - since, 3) if since is not None else now, "pid": os.getpid()}
    line = json.dumps({**stamp, **fields}) + "\n"
    feed = _feeds().get(str(path))
    if feed is not None:  # a history the trusted side keeps: this child's own pipe to it
        if not _is_pipe(feed):
            return  # a descendant that inherited the variable, not the pipe: it has no line in that history
        with _feed_lock:  # one whole line at a time, whichever thread writes (a pipe splits long writes)
            data = line.encode()
            while data:
                data = data[os.write(feed, data):]
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def read(path: str | Path, event: Callable[..., E] = dict) -> list[E]:
    """Every whole event in the file, as event(**fields), in time order (none if there is no file)."""
    path = Path(path)
    if not path.exists():
        return []
    events = []
    for line in path.read_text().splitlines():
        try:
            fields = json.loads(line)
            events.append((fields, event(**fields)))
        except (ValueError, TypeError):
            continue  # a line cut short by a kill: nothing we can learn from it
    return [e for _, e in sorted(events, key=lambda pair: pair[0].get("t", 0.0))]


def new_file(prefix: str = "course-history-") -> str:
    """A fresh, empty history file, in the folder a child running code under test may write. Every child
    may append to it: when a class is graded each sandboxed child runs as a uid of its own (the folder
    is sticky, so none can remove or replace it; outside grading the folder is the owner's alone). So
    no verdict is read from one: it is for what a notebook runs and shows itself (lab 13's consumers,
    jq.new_history); a check keeps its own (Kept)."""
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=".jsonl", dir=processes.exchange_dir())
    os.fchmod(fd, 0o666)
    os.close(fd)
    return path


LONGEST_LINE = 1 << 20
MOST_BYTES = 64 << 20  # what a Kept history takes from its children: a flood is theirs to lose, not our disk
FEEDS_ENV = "COURSE_EVENT_FEEDS"  # a child's: {history's name: the descriptor of its pipe to it}, as JSON
_feed_lock = threading.Lock()


def _feeds() -> dict[str, int]:
    try:
        return {str(name): int(fd) for name, fd in json.loads(os.environ.get(FEEDS_ENV) or "{}").items()}
    except (ValueError, TypeError, AttributeError):
        return {}


def _is_pipe(fd: int) -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


class Kept:
    """A history this process alone writes, fed by the children it starts (in its log folder, which no
    sandboxed child can reach). For each child:

        feed = kept.feed(worker=slot)                      # a pipe; stamp: fields every line of it gets
        child = processes.python(..., env={**env, **feed.env}, pass_fds=feed.fds)
        feed.started(child.pid)                            # its lines are read, stamped, written from now
        ...
        kept.settle()                                      # what they wrote so far is in the file
        kept.close()                                       # every child ended: their last lines are in
        events = read(kept.path, SomeEvent)

    A child's record(kept.path, ...) writes into its feed; a line that is not one JSON object is dropped,
    and its `pid` and `stamp` fields are the ones this side knows, whatever it said. record(kept.path)
    here writes the file directly (what the supervisor itself saw)."""

    def __init__(self, prefix: str = "course-history-"):
        fd, self.path = tempfile.mkstemp(prefix=prefix, suffix=".jsonl", dir=processes.log_dir())
        os.close(fd)
        self._readers: list[threading.Thread] = []
        self._feeds: list[Feed] = []
        self._lock = threading.Lock()
        self._taken = 0  # bytes written from the feeds

    def feed(self, **stamp) -> "Feed":
        return Feed(self, stamp)

    def read(self, event: Callable[..., E] = dict) -> list[E]:
        """settle(), then every event so far (read(self.path, event))."""
        self.settle()
        return read(self.path, event)

    def settle(self) -> None:
        """Every line the children have written so far is in the file (what a child wrote before it did
        something you saw, such as commit a row, is then there to read)."""
        for feed in self._feeds:
            feed.drain()

    def close(self, timeout_s: float = 30.0) -> None:
        """Wait for every feed to end (its child and what it started gone): a feed still open after
        `timeout_s` (a descendant that kept its end) is read to what it holds, then no more."""
        deadline = time.monotonic() + timeout_s
        for reader in self._readers:
            reader.join(max(0.0, deadline - time.monotonic()))
        for feed in self._feeds:
            feed.drain()
            feed.shut()
        self._readers, self._feeds = [], []

    def _append(self, line: bytes, stamp: dict) -> None:
        try:
            fields = json.loads(line)
        except ValueError:
            return  # a line cut short by a kill, or not a line of ours
        if not isinstance(fields, dict):
            return
        data = (json.dumps({**fields, **stamp}) + "\n").encode()
        with self._lock:
            if self._taken + len(data) > MOST_BYTES:
                return
            self._taken += len(data)
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            except FileNotFoundError:
                return  # the history was read and removed: the run is over
            try:
                os.write(fd, data)
            finally:
                os.close(fd)


class Feed:
    """One child's pipe into a Kept history: pass `fds` and `env` to the child, then started(pid)."""

    def __init__(self, kept: Kept, stamp: dict):
        self.kept, self.stamp = kept, stamp
        self._read, self._write = os.pipe()
        self.fds = [self._write]
        self.env = {FEEDS_ENV: json.dumps({str(kept.path): self._write})}
        self._rest = b""  # a line begun, not yet ended
        self._draining = threading.Lock()

    def started(self, pid: int) -> None:
        """The child runs: close our copy of its end, and read its lines as `pid`'s from now on."""
        os.close(self._write)
        os.set_blocking(self._read, False)
        self.stamp = {**self.stamp, "pid": pid}
        reader = threading.Thread(target=self._pump, name=f"feed-{pid}", daemon=True)
        self.kept._feeds.append(self)
        self.kept._readers.append(reader)
        reader.start()

    def drain(self) -> bool:
        """Write every whole line now in the pipe into the history (up to MOST_BYTES at a time: a child
        that writes without end does not hold us); False once the child's end is closed."""
        with self._draining:
            if self._read is None:
                return False
            for _ in range(MOST_BYTES >> 16):
                try:
                    chunk = os.read(self._read, 1 << 16)
                except BlockingIOError:
                    return True
                if not chunk:  # every writer gone; a last line without its end was torn by a kill
                    os.close(self._read)
                    self._read = None
                    return False
                *lines, self._rest = (self._rest + chunk).split(b"\n")
                if len(self._rest) > LONGEST_LINE:
                    self._rest = b""  # no line of a history is this long: not one of ours
                for line in lines:
                    self.kept._append(line, self.stamp)
            return True

    def shut(self) -> None:
        """Read no more of it (its reader thread ends)."""
        with self._draining:
            if self._read is not None:
                os.close(self._read)
                self._read = None

    def _pump(self) -> None:
        while True:
            with self._draining:
                fd = self._read
            if fd is None:
                return
            try:
                select.select([fd], [], [], 0.5)
            except (OSError, ValueError):
                pass  # settle() read its end to the last and closed it meanwhile: drain() says so
            if not self.drain():
                return


class Feeds:
    """One child's pipes into several Kept histories (a consumer's own history and the page log its
    handler writes): pass `fds` and `env` to the child, then started(pid)."""

    def __init__(self, feeds: Sequence[Feed]):
        self.feeds = list(feeds)
        self.fds = [fd for feed in self.feeds for fd in feed.fds]
        named = {name: fd for feed in self.feeds for name, fd in json.loads(feed.env[FEEDS_ENV]).items()}
        self.env = {FEEDS_ENV: json.dumps(named)} if named else {}

    def started(self, pid: int) -> None:
        for feed in self.feeds:
            feed.started(pid)


def feeding(histories: Sequence[Kept], **stamp) -> Feeds:
    """A feed into each of `histories` for one child, every line of it stamped with `stamp` (and its pid)."""
    return Feeds([history.feed(**stamp) for history in histories])


def timeline(events: Sequence[Event], describe: Callable[[Event], str], *, since: float | None = None,
             empty: str = "(nothing happened)") -> str:
    """One line per event: its time in seconds from `since` (the first event's, when not given), then
    describe(event)."""
    if not events:
        return empty
    t0 = since if since is not None else events[0].t
    return "\n".join(f"{e.t - t0:6.2f} s  {describe(e)}" for e in events)
