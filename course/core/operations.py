"""What a worker asks of the queue: the operations it calls, exactly how it calls them, and the check that
an `ops` it is given can take those calls.

A Worker calls course.core.queue (a module is an object too) unless it is given its own `ops`: the fault
injector runs a learner's extend_leases inside the reference worker, StayHub's worker a retry policy of
its own. reference_operations(extend_leases=yours) makes one; check_operations refuses, when the worker
is built, one that lacks an operation or cannot take one of the worker's calls, rather than at its first
job.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Protocol

import psycopg

from course.core import queue as q
from course.core.queue import Job
from course.errors import InvalidArgument


class QueueOperations(Protocol):
    """The queue operations a Worker calls, and how: course.core.queue has them all (a module is an object
    too); a harness may pass its own, made by reference_operations(extend_leases=a learner's, ...).

    Each is called with a connection of the worker's own, in autocommit: `listen` on the listener's, the
    others on the main loop's. Every statement a worker runs is one of these.
    """

    def where(self, conn: psycopg.Connection) -> q.Place: ...

    def listen(self, conn: psycopg.Connection) -> None: ...

    def claim(self, conn: psycopg.Connection, queue: str, *, limit: int, lease_s: float,
              worker: str | None) -> list[Job]: ...

    def ack_many(self, conn: psycopg.Connection, jobs: Iterable[Job]) -> set[int]: ...

    def ack_and_claim(self, conn: psycopg.Connection, jobs: Iterable[Job], queue: str, *, limit: int,
                      lease_s: float, worker: str | None) -> tuple[set[int], list[Job]]: ...

    def extend_leases(self, conn: psycopg.Connection, jobs: Iterable[Job], lease_s: float) -> set[int]: ...

    def fail(self, conn: psycopg.Connection, job: Job, error: BaseException, *,
             backoff: Callable[[int], float] = ...) -> q.Retry | q.Dead | None: ...

    def bury(self, conn: psycopg.Connection, job: Job, reason: str, error: BaseException | str) -> bool: ...

    def fate(self, conn: psycopg.Connection, job: Job) -> str: ...

    def gone(self, conn: psycopg.Connection, ids: Iterable[int]) -> set[int]: ...


@dataclass(frozen=True)
class Call:
    """The shape of one call the worker makes: its positional arguments and its keywords, by name."""

    args: tuple[str, ...]
    keywords: tuple[str, ...] = ()


# Every call the worker makes of each operation (a test reads worker.py's `self.ops.<name>(...)`
# calls and holds them to this list). check_operations binds each to the operation's signature at start,
# so an `ops` with a missing or mis-shaped operation is refused at once, not at its first job.
CALLS = {
    "where": [Call(("conn",))],
    "listen": [Call(("conn",))],
    "claim": [Call(("conn", "queue"), ("limit", "lease_s", "worker"))],
    "ack_many": [Call(("conn", "jobs"))],
    "ack_and_claim": [Call(("conn", "jobs", "queue"), ("worker", "limit", "lease_s"))],
    "extend_leases": [Call(("conn", "jobs", "lease_s"))],
    "fail": [Call(("conn", "job", "error")), Call(("conn", "job", "error"), ("backoff",))],
    "bury": [Call(("conn", "job", "reason", "error"))],
    "fate": [Call(("conn", "job"))],
    "gone": [Call(("conn", "ids"))],
}
CUSTOM_BACKOFF = Call(("conn", "job", "error"), ("backoff",))  # made only when the settings choose the backoff


def reference_operations(**replacements: Callable) -> SimpleNamespace:
    """course.core.queue's operations, some of them replaced: a harness's `ops`, e.g.
    reference_operations(extend_leases=learners_extend_leases)."""
    unknown = sorted(set(replacements) - set(CALLS))
    if unknown:
        raise InvalidArgument(f"reference_operations() knows {', '.join(CALLS)}; not {', '.join(unknown)}.")
    return SimpleNamespace(**{name: replacements.get(name, getattr(q, name)) for name in CALLS})


def check_operations(ops: object, *, custom_backoff: bool = False) -> None:
    """Refuse an `ops` that cannot take every call a worker makes, naming the operation; `custom_backoff`:
    whether the worker's settings choose the retry backoff (then it passes fail() a backoff= too)."""
    problems = []
    for op_name, calls in CALLS.items():
        operation = getattr(ops, op_name, None)
        if not callable(operation):
            problems.append(f"no {op_name}()")
            continue
        try:
            signature = inspect.signature(operation)
        except (TypeError, ValueError):  # a builtin without a readable signature: trust it
            continue
        for call in calls:
            if call == CUSTOM_BACKOFF and not custom_backoff:
                continue
            try:
                signature.bind(*call.args, **dict.fromkeys(call.keywords))
            except TypeError as error:
                keywords = "".join(f", {k}=..." for k in call.keywords)
                problems.append(f"{op_name}{signature} cannot take the worker's call {op_name}({', '.join(call.args)}"
                                f"{keywords}) ({error})")
    if problems:
        raise InvalidArgument(f"Worker(ops=...) does not provide the queue operations the worker calls: "
                              f"{'; '.join(problems)}. Pass course.core.queue, or "
                              f"course.core.operations.reference_operations(name=yours) to replace some of them "
                              f"(QueueOperations says how each is called). Nothing was started.")
