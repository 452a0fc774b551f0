"""What the checks' side admits from the answer's side: plain data and a few classes, rebuilt here.

What comes back from the answer (its return values, its exceptions, the arguments it passes to a lent
object) is decoded by AnswerDecoder: plain data, dataclasses and enums of the course (and of
nats.js.api) rebuilt by their own constructors, exceptions of an allowlist of modules (psycopg's, the
course's, the standard ones) rebuilt the same way — so `except psycopg.errors.LockNotAvailable` in a
check catches what the answer raised — and, for anything else, an Opaque value equal to nothing. A
value the learner made cannot be a proxy whose `__eq__` says True: no code of theirs runs here.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import keyword
import re
import sys
from dataclasses import dataclass
from typing import Any

import psycopg
import psycopg.sql
from psycopg.types.json import Json, Jsonb

from course.grading.boundary import wire
from course.grading.boundary.lending import Lender
from course.grading.boundary.wire import MAX_TEXT, Decoder, Opaque, WireError, first_words, qualified


# Exceptions are rebuilt only from classes of these modules (already imported: nothing is imported on
# the answer's say-so), and only subclasses of Exception: a SystemExit or KeyboardInterrupt raised by
# the answer arrives as a RemoteError named so, and cannot stop the checks.
EXCEPTION_MODULES = frozenset({
    "builtins", "psycopg", "psycopg.errors", "psycopg.pq", "course.errors", "course.core.queue",
    "course.programs.email_provider", "course.programs.http", "course.infra.broker", "nats.errors",
    "nats.js.errors", "json.decoder", "asyncio.exceptions", "concurrent.futures._base", "subprocess",
    "socket", "http.client", "urllib.error", "decimal", "zoneinfo",
})
# The dataclasses an answer may return (the course's own value types), rebuilt by their constructors, and
# the packages whose enums may come back. Any other object arrives as an Opaque value, equal to nothing.
VALUES = frozenset({
    *(f"course.core.queue.{name}" for name in ("Job", "DeadJob", "QueueStats", "Stats", "Retry", "Dead")),
    *(f"course.core.scheduler.{name}" for name in ("Schedule", "Plan", "SlotRun", "Heartbeat")),
    *(f"course.core.monitoring.{name}" for name in ("QueueView", "Snapshot", "Alert")),
    "course.programs.email_provider.Delivery", "course.programs.email_provider.ProviderRequest",
    "nats.js.api.PubAck",
})
ENUM_MODULES = frozenset({"psycopg.pq", "psycopg.pq._enums", "psycopg.adapt", "psycopg._enums"})


class RemoteError(Exception):
    """An exception of a class this side does not rebuild (the learner's own, or SystemExit): its
    type's name, message and the learner's line travel; `type(error).__name__` is the learner's name."""


@dataclass(frozen=True)
class Where:
    """Where the learner's code raised: the innermost line of theirs, and their traceback (for the log)."""
    line: str
    traceback: str
    type_name: str


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}\Z")


def resolve(name: Any, modules: frozenset[str]) -> Any:
    """The object `module.qual.name` names, if its module is allowed and already imported; else None.
    No attribute that starts with an underscore is followed."""
    if type(name) is not str or len(name) > 300:
        return None
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module_name, path = ".".join(parts[:cut]), parts[cut:]
        module = sys.modules.get(module_name)
        if module is None or module_name not in modules:
            continue
        value = module
        for part in path:
            if not _IDENTIFIER.match(part) or part.startswith("_"):
                return None
            value = getattr(value, part, None)
            if value is None:
                return None
        return value
    return None


class AnswerDecoder(Decoder):
    """Decodes what the answer's side sends, on the trusted side: data, and only the classes allowed."""

    def __init__(self, lender: Lender):
        self.lender = lender
        self._named_tuples: dict[tuple, type] = {}
        self._remote_classes: dict[tuple, type] = {}

    def other(self, tag: Any, data: dict, depth: int) -> Any:
        if tag == "mine":
            return self.lender.loan(data["id"]).value
        if tag == "opaque":
            return Opaque(wire.string(data["type"])[:300], wire.string(data["repr"])[:MAX_TEXT])
        if tag == "ntuple":
            return self._named_tuple(data, depth)
        if tag == "enum":
            cls = resolve(data["cls"], ENUM_MODULES)
            if not (isinstance(cls, type) and issubclass(cls, enum.Enum)):
                raise WireError(f"an enum of a class this side does not rebuild: {str(data['cls'])[:100]}")
            return cls(self.decode(data["v"], depth + 1))
        if tag == "obj":
            return self._dataclass(data, depth)
        if tag == "sql":
            return self._sql(data, depth)
        if tag == "json":
            text = wire.string(data["text"])
            return (Jsonb if data.get("binary") else Json)(text, dumps=_verbatim)
        if tag == "exc":
            return self.exception(data, depth)
        return super().other(tag, data, depth)

    def _named_tuple(self, data: dict, depth: int) -> tuple:
        names = tuple(wire.string(n) for n in wire.items(data["names"]))
        values = [self.decode(v, depth + 1) for v in wire.items(data["v"])]
        if len(names) != len(values) or len(names) > 1000:
            raise WireError("a named tuple whose names and values differ in number")
        cls = self._named_tuples.get(names)
        if cls is None:
            cls = self._named_tuples[names] = collections.namedtuple("Row", names, rename=True)
        return cls(*values)

    def _dataclass(self, data: dict, depth: int) -> Any:
        name = data["cls"]
        cls = resolve(name, frozenset({str(name).rpartition(".")[0]})) if name in VALUES else None
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            return Opaque(str(data["cls"])[:300], f"<a {str(data['cls'])[:200]}, which cannot cross as data>")
        fields = {wire.string(k): self.decode(v, depth + 1) for k, v in _fields(data["fields"]).items()}
        known = {f.name for f in dataclasses.fields(cls) if f.init}
        if not set(fields) <= known:
            raise WireError(f"fields {sorted(set(fields) - known)[:5]} that {cls.__name__} does not have")
        try:
            return cls(**fields)
        except Exception as error:  # noqa: BLE001 — its own constructor refused these values
            raise WireError(f"a {cls.__name__} that its constructor refuses: {first_words(error)}") from None

    def _sql(self, data: dict, depth: int) -> psycopg.sql.Composable:
        kind = data.get("kind")
        if kind == "SQL":
            return psycopg.sql.SQL(wire.string(data["v"]))
        if kind == "Identifier":
            return psycopg.sql.Identifier(*(wire.string(p) for p in wire.items(data["v"])))
        if kind == "Literal":
            return psycopg.sql.Literal(self.decode(data["v"], depth + 1))
        if kind == "Placeholder":
            return psycopg.sql.Placeholder(wire.string(data.get("name", "")),
                                           psycopg.adapt.PyFormat(wire.string(data.get("format", "s"))))
        if kind == "Composed":
            return psycopg.sql.Composed([self._sql(part, depth + 1) for part in wire.items(data["v"])])
        raise WireError(f"an SQL composition of kind {str(kind)[:30]!r}")

    def exception(self, data: dict, depth: int) -> BaseException:
        where = Where(wire.string(data.get("where", ""))[:MAX_TEXT], wire.string(data.get("tb", ""))[:MAX_TEXT],
                      wire.string(data["cls"]).rsplit(".", 1)[-1][:100])
        original = self.lender.error(data.get("token"))
        if original is not None and qualified(type(original)) == data.get("cls"):
            error = original  # the very exception a lent object raised to them, raised on: identity kept
        else:
            error = self._rebuild(data, self._arguments(data, depth), wire.string(data.get("msg", ""))[:MAX_TEXT],
                                  where.type_name)
        try:
            error.__boundary__ = where
        except AttributeError:
            pass
        return error

    def _arguments(self, data: dict, depth: int) -> list:
        args = []
        for value in wire.items(data.get("args", []))[:10]:
            try:
                args.append(self.decode(value, depth + 1))
            except WireError:
                args.append(Opaque("?", "<an argument that could not be decoded>"))
        return args

    def _rebuild(self, data: dict, args: list, message: str, type_name: str) -> BaseException:
        names = [data["cls"], *wire.items(data.get("mro", []))[:20]]
        for position, name in enumerate(names):
            cls = resolve(name, EXCEPTION_MODULES)
            if not (isinstance(cls, type) and issubclass(cls, Exception)):
                continue
            if position:  # the learner's subclass of an allowed class: a class of that name, under it
                cls = self._remote_class(type_name, cls)
            try:
                return cls(*args)
            except Exception:  # noqa: BLE001 — a constructor with another signature: set its args
                error = cls.__new__(cls)
                error.args = tuple(args)
                return error
        return self._remote_class(type_name, RemoteError)(message)

    def _remote_class(self, name: str, base: type) -> type:
        name = name if _IDENTIFIER.match(name) and not keyword.iskeyword(name) else "LearnerError"
        cls = self._remote_classes.get((name, base))
        if cls is None:
            cls = self._remote_classes[(name, base)] = type(name, (base,), {"__module__": "__notebook__"})
        return cls


def _fields(value: Any) -> dict:
    if type(value) is not dict:
        raise WireError("fields were expected as an object")
    return value


def _verbatim(text: str) -> str:
    return text
