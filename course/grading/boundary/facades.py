"""On the answer's side: what the learner's code holds in place of what the check lent it.

They behave like the real things, so an answer written in the notebook runs unchanged:

    RemoteConnection   conn.execute(...).fetchone(), conn.cursor(row_factory=dict_row), `with
                       conn.transaction():` (nested: savepoints; psycopg.Rollback), commit, rollback,
                       autocommit, conn.info.transaction_status — every statement runs on the check's
                       own connection, in the check's process, so transactions are the check's
    RemoteCursor       the rows of each statement, fetched with the statement; the row factory (dict_row,
                       class_row(Job), a function of the learner's) applied here, on those rows
    RemoteTransaction  the `with` block: its end tells the check's side to commit, roll back or take a
                       psycopg.Rollback
    LentRandom         a random.Random whose random() and getrandbits() are the check's generator's
    LentObject         the email provider, the checkout app, a task: the methods and attributes lent
    LentCallable       a function of the check's (publish, a clock, a spy's callback)

Each asks through a Link (host.py's AnswerSide): call, get, set on the lent object's id.
"""

from __future__ import annotations

import asyncio
import collections
import random
from typing import Any, Protocol

import psycopg
import psycopg.adapt
import psycopg.rows
from psycopg.pq import ExecStatus

ROW_FACTORIES = {"tuple_row": psycopg.rows.tuple_row, "dict_row": psycopg.rows.dict_row,
                 "namedtuple_row": psycopg.rows.namedtuple_row}


class Link(Protocol):
    def call(self, target: int, method: str | None, args: tuple, kwargs: dict) -> Any: ...
    def get(self, target: int, name: str) -> Any: ...
    def set(self, target: int, name: str, value: Any) -> None: ...


class Lent:
    """Something the check lent: known to the encoder by its id, sent back as itself."""

    _boundary_id: int
    _link: Link


# -- a connection -----------------------------------------------------------------------------------------


class RemoteConnection(Lent):
    def __init__(self, link: Link, ref: int, info: dict):
        self._link, self._boundary_id = link, ref
        self.row_factory = ROW_FACTORIES.get(info.get("row_factory"), psycopg.rows.tuple_row)
        self.info = ConnectionInfo(self)

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._link.call(self._boundary_id, method, args, kwargs)

    def cursor(self, name: str = "", *, row_factory=None, binary: bool | None = None, scrollable=None,
               withhold: bool = False) -> "RemoteCursor":
        """A cursor (a named one is read whole, like a client-side one: the rows cross at once)."""
        return RemoteCursor(self, row_factory or self.row_factory, binary)

    def execute(self, query, params=None, *, prepare: bool | None = None, binary: bool = False) -> "RemoteCursor":
        return self.cursor().execute(query, params, prepare=prepare, binary=binary)

    def transaction(self, savepoint_name: str | None = None, force_rollback: bool = False) -> "RemoteTransaction":
        return RemoteTransaction(self, savepoint_name, force_rollback)

    def commit(self) -> None:
        self._call("commit")

    def rollback(self) -> None:
        self._call("rollback")

    def close(self) -> None:
        self._call("close")

    def cancel(self) -> None:
        self._call("cancel")

    def _attribute(name: str, settable: bool = True):  # noqa: N805 — a property factory, used below
        def get(self):
            return self._link.get(self._boundary_id, name)

        def put(self, value):
            self._link.set(self._boundary_id, name, value)

        return property(get, put if settable else None)

    autocommit = _attribute("autocommit")
    isolation_level = _attribute("isolation_level")
    read_only = _attribute("read_only")
    deferrable = _attribute("deferrable")
    closed = _attribute("closed", settable=False)
    broken = _attribute("broken", settable=False)
    del _attribute

    def __enter__(self) -> "RemoteConnection":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        """As psycopg's: commit (or roll back on an exception), then close."""
        try:
            if not self.closed:
                (self.rollback if exc_type else self.commit)()
        finally:
            self.close()

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"the connection the check lent your code has no {name!r} here: it runs in the "
                             "check's process, and only execute, cursor, transaction, commit, rollback, close, "
                             "autocommit and info cross to it")

    def __repr__(self) -> str:
        return "<psycopg connection lent by the check>"


class ConnectionInfo:
    def __init__(self, connection: RemoteConnection):
        self._connection = connection

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._connection._link.get(self._connection._boundary_id, f"info.{name}")

    def parameter_status(self, name: str) -> str | None:
        return self._connection._call("parameter_status", name)


Column = collections.namedtuple("Column", "name type_code display_size internal_size precision scale null_ok",
                                defaults=(None,) * 5)


class _Result:
    """Just enough of a PGresult for psycopg's row factories (which read names from cursor.pgresult)."""

    def __init__(self, names: list[str] | None):
        self.status = ExecStatus.TUPLES_OK if names is not None else ExecStatus.COMMAND_OK
        self.nfields = len(names) if names is not None else 0
        self._names = [n.encode() for n in names or ()]

    def fname(self, index: int) -> bytes:
        return self._names[index]


class RemoteCursor:
    _encoding = "utf-8"
    arraysize = 1

    def __init__(self, connection: RemoteConnection, row_factory, binary: bool | None = None):
        self.connection, self.row_factory, self._binary = connection, row_factory, binary
        self._sets: list[dict] = []
        self._index = 0
        self._rows: list | None = None
        self._position = 0
        self.description = None
        self.pgresult = None
        self.rowcount = -1
        self.statusmessage = None
        self.closed = False
        self._adapters: psycopg.adapt.AdaptersMap | None = None

    def execute(self, query, params=None, *, prepare: bool | None = None, binary: bool | None = None) -> "RemoteCursor":
        result = self.connection._call("execute", query, params, prepare=prepare,
                                       binary=self._binary if binary is None else binary)
        self._load(result["sets"])
        return self

    def executemany(self, query, params_seq, *, returning: bool = False) -> None:
        result = self.connection._call("executemany", query, [p for p in params_seq], returning=returning)
        self._load(result["sets"])

    def _load(self, sets: list[dict]) -> None:
        self._sets = sets
        self._select(0)

    def _select(self, index: int) -> None:
        self._index = index
        chosen = self._sets[index]
        names = [c[0] for c in chosen["description"]] if chosen["description"] is not None else None
        self.description = [Column(n, t) for n, t in chosen["description"]] if names is not None else None
        self.pgresult = _Result(names)
        self.rowcount, self.statusmessage = chosen["rowcount"], chosen["status"]
        self._rows, self._position = chosen["rows"], 0
        self._make_row = self.row_factory(self) if names is not None else None

    def nextset(self) -> bool | None:
        if self._index + 1 < len(self._sets):
            self._select(self._index + 1)
            return True
        return None

    def _available(self) -> list:
        if self._rows is None:
            raise psycopg.ProgrammingError(
                f"the last operation didn't produce records (command status: {self.statusmessage})"
                if self._sets else "no result available")
        return self._rows

    def fetchone(self):
        rows = self._available()
        if self._position >= len(rows):
            return None
        self._position += 1
        return self._make_row(rows[self._position - 1])

    def fetchmany(self, size: int = 0) -> list:
        rows = self._available()
        size = size or self.arraysize
        chunk = rows[self._position:self._position + size]
        self._position += len(chunk)
        return [self._make_row(row) for row in chunk]

    def fetchall(self) -> list:
        rows = self._available()
        chunk = rows[self._position:]
        self._position = len(rows)
        return [self._make_row(row) for row in chunk]

    def __iter__(self):
        while (row := self.fetchone()) is not None:
            yield row

    @property
    def rownumber(self) -> int | None:
        return self._position if self._rows is not None else None

    def scroll(self, value: int, mode: str = "relative") -> None:
        rows = self._available()
        target = self._position + value if mode == "relative" else value
        if not 0 <= target <= len(rows):
            raise IndexError("position out of bound")
        self._position = target

    @property
    def adapters(self) -> psycopg.adapt.AdaptersMap:
        """This cursor's own map, as psycopg gives one (course.core.queue registers a jsonb loader on it).
        It is kept and never consulted: the rows cross the boundary already decoded, by psycopg's default
        loaders on the check's side, which never runs a loader of the answer's."""
        if self._adapters is None:
            self._adapters = psycopg.adapt.AdaptersMap(psycopg.adapters)
        return self._adapters

    def copy(self, *args, **kwargs):
        raise psycopg.NotSupportedError("COPY does not cross the grading boundary: insert with executemany instead")

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> "RemoteCursor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class RemoteTransaction:
    """`with conn.transaction() as tx:` — the block opens on the check's connection, and ends there."""

    def __init__(self, connection: RemoteConnection, savepoint_name: str | None, force_rollback: bool):
        self.connection, self.savepoint_name, self.force_rollback = connection, savepoint_name, force_rollback
        self._id: int | None = None

    def __enter__(self) -> "RemoteTransaction":
        opened = self.connection._call("transaction", self.savepoint_name, self.force_rollback)
        self._id, self.savepoint_name = opened["transaction"], opened["savepoint_name"]
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc is None:
            outcome = "ok"
        elif isinstance(exc, psycopg.Rollback) and exc.transaction in (None, self):
            outcome = "rollback"
        else:
            outcome = "error"
        return bool(self.connection._link.call(self._id, "exit", (outcome,), {}))

    def __repr__(self) -> str:
        return f"<transaction lent by the check{f' (savepoint {self.savepoint_name})' if self.savepoint_name else ''}>"


# -- other things the check lends -------------------------------------------------------------------------


class LentRandom(random.Random, Lent):
    """The check's random generator. Every draw (uniform, randint, choice, shuffle...) is built on random()
    and getrandbits(), and both on the Mersenne Twister's 32-bit words: those words are the check's
    generator's own, fetched in batches (the check's generator moves on by a batch at a time), and used
    here exactly as CPython uses them. So the same seed gives the same draws as in the notebook, at one
    crossing per batch rather than per draw."""

    FIRST_BATCH, LARGEST_BATCH = 8, 4096

    def __init__(self, link: Link, ref: int):
        self._link, self._boundary_id, self._ready = link, ref, False
        self._words: list[int] = []
        self._batch = self.FIRST_BATCH
        super().__init__(0)
        self._ready = True

    def _word(self) -> int:
        if not self._words:
            self._words = list(reversed(self._link.call(self._boundary_id, "words", (self._batch,), {})))
            self._batch = min(self._batch * 2, self.LARGEST_BATCH)
        return self._words.pop()

    def random(self) -> float:
        a, b = self._word() >> 5, self._word() >> 6  # as random_random() in CPython's _randommodule.c
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k <= 32:  # as random_getrandbits(): one word, its top k bits
            return self._word() >> (32 - k) if k else 0
        value, shift = 0, 0
        while k > 0:
            word = self._word()
            if k < 32:
                word >>= 32 - k
            value |= word << shift
            shift, k = shift + 32, k - 32
        return value

    def seed(self, a=None, version: int = 2) -> None:
        if not getattr(self, "_ready", False):
            return super().seed(a, version)
        self._words = []
        self._link.call(self._boundary_id, "seed", (a,), {"version": version})

    def __repr__(self) -> str:
        return "<random.Random lent by the check>"


class LentObject(Lent):
    def __init__(self, link: Link, ref: int, info: dict):
        self._link, self._boundary_id = link, ref
        self._type = str(info.get("type", "object"))
        self._methods = frozenset(info.get("methods", ()))
        self._attributes = frozenset(info.get("attributes", ()))

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._methods:
            return LentMethod(self, name)
        if name in self._attributes:
            return self._link.get(self._boundary_id, name)
        raise AttributeError(f"the {self._type} the check lent your code has no {name!r} you may use (it has "
                             f"{', '.join(sorted(self._methods | self._attributes))})")

    def __repr__(self) -> str:
        return f"<{self._type} lent by the check>"


class LentMethod:
    def __init__(self, owner: LentObject, name: str):
        self.__self__, self.__name__ = owner, name

    def __call__(self, *args, **kwargs):
        return self.__self__._link.call(self.__self__._boundary_id, self.__name__, args, kwargs)


class LentCallable(Lent):
    def __init__(self, link: Link, ref: int, info: dict):
        self._link, self._boundary_id = link, ref
        self.__name__ = str(info.get("name", "function"))
        self._coroutine = bool(info.get("coroutine"))

    def __call__(self, *args, **kwargs):
        if self._coroutine:
            return asyncio.to_thread(self._link.call, self._boundary_id, None, args, kwargs)
        return self._link.call(self._boundary_id, None, args, kwargs)

    def __repr__(self) -> str:
        return f"<function {self.__name__} lent by the check>"


def facade(link: Link, ref: int, kind: str, info: dict) -> Any:
    if kind == "connection":
        return RemoteConnection(link, ref, info)
    if kind == "random":
        return LentRandom(link, ref)
    if kind == "object":
        return LentObject(link, ref, info)
    if kind == "callable":
        return LentCallable(link, ref, info)
    raise ValueError(f"the check lent something of an unknown kind: {kind!r}")
