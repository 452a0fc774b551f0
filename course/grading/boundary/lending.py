"""The trusted side of the boundary: what a check may lend the learner's code, and what comes back.

A check calls an answer with arguments. Plain data (numbers, strings, lists, dicts, datetimes, a Job
and other dataclasses of the course) crosses as a copy. Anything else is *lent*: the answer's side gets
a reference to it, and can only ask this side to use it — and only in the ways listed here:

    a connection     execute, executemany (the rows come back as data), transaction (enter and exit),
                     commit, rollback, close; read autocommit, closed, broken and conn.info's fields;
                     set autocommit, isolation_level, read_only, deferrable
    a transaction    the end of its `with` block (commit, roll back, or psycopg.Rollback)
    a random.Random  its next 32-bit words, in batches, and seed(): every draw is built on these on the far
                     side, as CPython builds it, so the same seed gives the same draws as in the notebook
    a function       called (a `publish` the check controls, a clock, a spy's callback)
    an object        the methods and attributes EXPOSED names for its class (the email provider, the
                     checkout app, lab 13's recording task); anything else is refused

A lent object is lent for the duration of the call that lent it (a `scope`): once the check's call
returns, the answer's side holds a dead reference (its own threads included). It never gets an
attribute walk (`__class__`, `__globals__`, a module), never a pickle, and never anything the check did
not hand it.

What comes back is admit.py's to decide.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import itertools
import random
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql as pgsql
from psycopg.rows import tuple_row

from course.grading.boundary.wire import MAX_TEXT, DataEncoder, WireError, qualified


class Refused(PermissionError):
    """The answer's side asked for something it was not lent."""


# -- what may be lent, and how --------------------------------------------------------------------------


@dataclass(frozen=True)
class Exposed:
    methods: frozenset[str] = frozenset()
    attributes: frozenset[str] = frozenset()


def _exposed(methods: str = "", attributes: str = "") -> Exposed:
    return Exposed(frozenset(methods.split()), frozenset(attributes.split()))


# By class (module.qualname, matched along the object's MRO). A check that lends an object of a class
# not listed here fails loudly (TypeError), so what crosses is always this list.
EXPOSED: dict[str, Exposed] = {
    "course.programs.email_provider.EmailProvider": _exposed(
        "configure settings outage healthy deliveries requests stats reset send alive health", "url pid"),
    "course.programs.checkout.CheckoutApp": _exposed(
        "place_order order customer change_address terminate kill alive health log_tail", "url pid"),
    # 13.keep_alive hands the answer the course consumer loop's own Task, one delivery of a message.
    "course.programs.jetstream_consumer.Task": _exposed("in_progress", "data subject headers seq msg_id deliveries"),
}

CONNECTION_INFO = frozenset("transaction_status backend_pid dsn server_version dbname user host port encoding "
                            "vendor pipeline_status timezone".split())
CONNECTION_SETTABLE = frozenset("autocommit isolation_level read_only deferrable".split())
CONNECTION_READABLE = frozenset("autocommit closed broken isolation_level read_only deferrable".split())
ROW_FACTORIES = {psycopg.rows.tuple_row: "tuple_row", psycopg.rows.dict_row: "dict_row",
                 psycopg.rows.namedtuple_row: "namedtuple_row"}
MAX_ROWS = 200_000  # one statement's rows that may cross


def kind_of(value: Any) -> str | None:
    """How `value` is lent: connection, random, callable, object; None if it may not be."""
    declared = getattr(type(value), "__boundary_kind__", None)  # a check's wrapper of a connection, say
    if declared in ("connection",):
        return declared
    if isinstance(value, psycopg.Connection):
        return "connection"
    if isinstance(value, random.Random):
        return "random"
    if exposed_for(value) is not None:
        return "object"
    if callable(value) and not isinstance(value, type):
        return "callable"
    return None


def exposed_for(value: Any) -> Exposed | None:
    for cls in type(value).__mro__:
        found = EXPOSED.get(qualified(cls))
        if found is not None:
            return found
    return None


# -- scopes: what is lent, for how long ----------------------------------------------------------------

_SCOPE: contextvars.ContextVar["Scope | None"] = contextvars.ContextVar("boundary_scope", default=None)


class Scope:
    """A span (one call of an answer, a spy's life) during which what it lent stays usable."""

    def __init__(self, lender: "Lender"):
        self.lender, self.ids = lender, set()
        self.sessions: dict[int, tuple[Any, Session]] = {}  # each lent connection's session, as lent

    def put_back(self) -> None:
        """Each connection it lent, as it was lent: the settings the answer changed with SET (search_path,
        statement_timeout, default_transaction_read_only ...) set back, and a temporary table, view or
        sequence it made that bears the name of one the check reaches dropped (others stay, as in the
        notebook). An answer that pointed the check's connection at a `jobs` of its own, or made it
        read-only, cannot have the check read or write through that after it returns."""
        for conn, before in self.sessions.values():
            with contextlib.suppress(psycopg.Error):
                _restore(conn, before)


@dataclass
class Loan:
    value: Any
    kind: str
    scopes: set
    extra: Any = None  # a transaction's context manager


class Lender:
    """The table of lent objects: id -> object, each alive while one of its scopes is open."""

    def __init__(self):
        self._loans: dict[int, Loan] = {}
        self._by_object: dict[int, int] = {}
        self._open: set[Scope] = set()
        self._errors: dict[int, tuple[BaseException, set]] = {}  # exceptions handed over, by token
        self._ids = itertools.count(1)
        self._known: dict[int, tuple[weakref.ref, int]] = {}
        self._lock = threading.RLock()

    @contextlib.contextmanager
    def scope(self) -> Iterator[Scope]:
        scope = Scope(self)
        with self._lock:
            self._open.add(scope)
        token = _SCOPE.set(scope)
        try:
            yield scope
        finally:
            _SCOPE.reset(token)
            scope.put_back()
            with self._lock:
                self._open.discard(scope)
                for loan_id in scope.ids:
                    loan = self._loans.get(loan_id)
                    if loan is not None:
                        loan.scopes.discard(scope)
                        if not loan.scopes:
                            del self._loans[loan_id]
                            self._by_object.pop(id(loan.value), None)
                for token_id, (error, scopes) in list(self._errors.items()):
                    scopes.discard(scope)
                    if not scopes:
                        del self._errors[token_id]

    def _scopes_now(self) -> set:
        current = _SCOPE.get()
        if current is not None and current in self._open:
            return {current}
        if not self._open:  # nothing is lent at all right now: a call from a stray thread of theirs
            raise Refused("nothing is lent to your code right now (its call has returned)")
        return set(self._open)  # a thread of theirs, serving no call of ours: as long as any call lasts

    def lend(self, value: Any, kind: str, extra: Any = None) -> int:
        with self._lock:
            scopes = self._scopes_now()
            loan_id = self._by_object.get(id(value))
            loan = self._loans.get(loan_id) if loan_id is not None else None
            if loan is None or loan.value is not value:
                loan_id = self._known_id(value)
                loan = self._loans[loan_id] = Loan(value, kind, set(), extra)
                self._by_object[id(value)] = loan_id
            loan.scopes |= scopes
            for scope in scopes:
                scope.ids.add(loan_id)
                if kind == "connection" and loan_id not in scope.sessions and isinstance(value, psycopg.Connection):
                    with contextlib.suppress(psycopg.Error):
                        scope.sessions[loan_id] = (value, _session(value))
            return loan_id

    def _known_id(self, value: Any) -> int:
        """The id this object had when it was lent before (while it lives), or a new one: lent again in the
        next call, the check's generator is the same generator on the far side (its batch of words goes
        on), as in the notebook, where it is one object."""
        known = self._known.get(id(value))
        if known is not None and known[0]() is value:
            return known[1]
        loan_id = next(self._ids)
        try:
            self._known[id(value)] = (weakref.ref(value, lambda _, key=id(value): self._known.pop(key, None)), loan_id)
        except TypeError:  # no weak reference to it: a new id each time
            pass
        return loan_id

    def loan(self, loan_id: Any) -> Loan:
        with self._lock:
            loan = self._loans.get(loan_id) if type(loan_id) is int else None
        if loan is None:
            raise Refused("that object is no longer lent to your code: it was lent for one call, which has returned")
        return loan

    def remember_error(self, error: BaseException) -> int | None:
        with self._lock:
            try:
                scopes = self._scopes_now()
            except Refused:
                return None
            token = next(self._ids)
            self._errors[token] = (error, scopes)
            return token

    def error(self, token: Any) -> BaseException | None:
        with self._lock:
            found = self._errors.get(token) if type(token) is int else None
        return found[0] if found else None


@dataclass(frozen=True)
class Session:
    settings: dict  # the settings given by the client or set in the session, as lent
    temporary: frozenset  # the oids of the session's temporary relations, as lent


_AS_LENT = """SELECT (SELECT coalesce(jsonb_object_agg(name, setting), '{}') FROM pg_settings
                      WHERE source IN ('session', 'client')),
                     (SELECT coalesce(array_agg(oid::int8), '{}') FROM pg_class WHERE relnamespace = pg_my_temp_schema())"""
_SETTINGS_NOW = "SELECT coalesce(jsonb_object_agg(name, setting), '{}') FROM pg_settings WHERE source = 'session'"
# Temporary relations named as one the connection's search_path reaches: pg_temp is searched first, so
# the check would read the answer's `jobs` for its own
_SHADOWS = """SELECT c.oid::int8, c.relname, c.relkind FROM pg_class c
               WHERE c.relnamespace = pg_my_temp_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
                 AND EXISTS (SELECT FROM pg_class o JOIN pg_namespace n ON n.oid = o.relnamespace
                              WHERE o.relname = c.relname AND n.nspname = ANY (current_schemas(true))
                                AND o.relnamespace <> pg_my_temp_schema())"""
_DROP = {"r": "TABLE", "p": "TABLE", "v": "VIEW", "m": "MATERIALIZED VIEW", "S": "SEQUENCE", "f": "FOREIGN TABLE"}


def _ours(conn: psycopg.Connection) -> psycopg.Cursor:
    """A plain cursor for the lender's own statements, whatever cursor class the connection makes: a
    connection that counts its statement boundaries (faults/boundaries.Watched, 12.safe_checkout's) counts
    the answer's, not these, and its action at boundary k (a crash, another session's call to the answer)
    never runs inside lend(), under this table's lock."""
    return psycopg.Cursor(conn, row_factory=tuple_row)


def _session(conn: psycopg.Connection) -> Session:
    settings, temporary = _ours(conn).execute(_AS_LENT).fetchone()
    return Session(dict(settings), frozenset(temporary))


def _restore(conn: psycopg.Connection, before: Session) -> None:
    ours = _ours(conn)
    ours.execute("SET statement_timeout = 0")  # an answer's 1 ms would cancel what follows (and is set back below)
    (settings,) = ours.execute(_SETTINGS_NOW).fetchone()
    for name, value in settings.items():
        if name not in before.settings:
            ours.execute(pgsql.SQL("RESET {}").format(pgsql.Identifier(name)))
        elif value != before.settings[name]:
            ours.execute("SELECT set_config(%s, %s, false)", [name, before.settings[name]])
    shadows = ours.execute(_SHADOWS).fetchall()
    for oid, name, kind in sorted(shadows, key=lambda found: found[2] == "S"):  # a table's own sequence goes with it
        if oid not in before.temporary:
            ours.execute(pgsql.SQL("DROP {} IF EXISTS pg_temp.{} CASCADE").format(pgsql.SQL(_DROP[kind]),
                                                                               pgsql.Identifier(name)))


# -- what crosses to the answer --------------------------------------------------------------------------


class LendingEncoder(DataEncoder):
    """Data as data; dataclasses and named tuples field by field; exceptions described; the rest lent."""

    def __init__(self, lender: Lender):
        self.lender = lender
        self.plain = DataEncoder()  # for what an exception carries: described, never lent

    def other(self, value: Any, depth: int) -> Any:
        if isinstance(value, BaseException):
            return self.exception(value, depth)
        structured = self.structured(value, depth)
        if structured is not None:
            return structured
        kind = kind_of(value)
        if kind is None:
            raise TypeError(f"a {qualified(type(value))} cannot be handed to the learner's code: it is neither "
                            f"data nor something course/grading/boundary/lending.py lends")
        info: dict[str, Any] = {}
        if kind == "connection":
            info["row_factory"] = ROW_FACTORIES.get(getattr(value, "row_factory", None), "tuple_row")
        elif kind == "object":
            exposed = exposed_for(value)
            info = {"type": type(value).__name__, "methods": sorted(exposed.methods),
                    "attributes": sorted(exposed.attributes)}
        elif kind == "callable":
            info["name"] = str(getattr(value, "__name__", type(value).__name__))[:200]
            info["coroutine"] = inspect.iscoroutinefunction(value)
        return {"$": "ref", "id": self.lender.lend(value, kind), "kind": kind, "info": info}

    def exception(self, error: BaseException, depth: int) -> dict:
        def data(value):
            try:
                return self.plain.encode(value, depth + 1)
            except (TypeError, WireError):
                return self.opaque(value)

        attrs = {}
        for name, value in list(getattr(error, "__dict__", {}).items())[:20]:
            if isinstance(name, str) and not name.startswith("_"):
                attrs[name] = data(value)
        return {"$": "exc", "cls": qualified(type(error)), "args": [data(a) for a in error.args[:10]],
                "attrs": attrs, "msg": str(error)[:MAX_TEXT], "token": self.lender.remember_error(error)}


