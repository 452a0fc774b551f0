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

`Event` is what every history's events have; a history's own event type adds what its events are
about (a job and its attempt, a message and its delivery) as keyword-only fields.
"""

from __future__ import annotations

import json
import os
import tempfile
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
    is sticky, so none can remove or replace it; outside grading the folder is the owner's alone)."""
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=".jsonl", dir=processes.exchange_dir())
    os.fchmod(fd, 0o666)
    os.close(fd)
    return path


def timeline(events: Sequence[Event], describe: Callable[[Event], str], *, since: float | None = None,
             empty: str = "(nothing happened)") -> str:
    """One line per event: its time in seconds from `since` (the first event's, when not given), then
    describe(event)."""
    if not events:
        return empty
    t0 = since if since is not None else events[0].t
    return "\n".join(f"{e.t - t0:6.2f} s  {describe(e)}" for e in events)
