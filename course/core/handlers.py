"""Which function runs which job type: a worker's handlers, and the payload each one needs.

    handlers = Registry()

    @handlers.handler("send_receipt", payload={"order_id": int})
    def send_receipt(job, conn):        # conn is optional: declare it if the job needs the database
        ...

`python -m course worker --app your_module:handlers` runs them (course/core/worker.py). A job whose type
has no handler, or whose payload lacks a key or has one of the wrong type, is dead-lettered at once: no
retry can fix it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from course.core import arguments


@dataclass(frozen=True)
class Handler:
    type: str
    run: Callable
    payload: Mapping[str, type]  # required keys and their types, checked before the handler runs
    wants_connection: bool  # declared as `def handler(job, conn)`

    def payload_problem(self, payload: dict) -> str | None:
        for key, expected in self.payload.items():
            if key not in payload:
                return f"payload has no {key!r} (expected {expected.__name__}); it has {sorted(payload)}"
            if not _is_a(payload[key], expected):
                return f"payload[{key!r}] is {payload[key]!r}, not {expected.__name__}"
        return None


def _is_a(value: object, expected: type) -> bool:
    """isinstance, as JSON means it: True is not an int, and 3 will do for a float."""
    if isinstance(value, bool):
        return expected is bool
    if expected is float:
        return isinstance(value, (int, float))
    return isinstance(value, expected)


class Registry:
    """Which function runs which job type.

        handlers = Registry()

        @handlers.handler("send_receipt", payload={"order_id": int})
        def send_receipt(job, conn):        # conn is optional: declare it if the job needs the database
            ...
    """

    def __init__(self) -> None:
        self._handlers: dict[str, Handler] = {}

    def handler(self, type: str, *, payload: Mapping[str, type] | None = None):
        arguments.name("job type", type, then="Nothing was registered.")

        def register(fn: Callable) -> Callable:
            wants_connection = len(inspect.signature(fn).parameters) >= 2
            self._handlers[type] = Handler(type, fn, dict(payload or {}), wants_connection)
            return fn

        return register

    def get(self, type: str) -> Handler | None:
        return self._handlers.get(type)

    @property
    def types(self) -> list[str]:
        return sorted(self._handlers)
