"""The checks' side of the channel: serving what the answer asks of the objects it was lent, and sending
the checks' own calls.

Every request from the answer's side names a lent object (by the id lending.py gave it) and one
operation: call a method, read or set an attribute. Each is checked against what that kind of object
lends (lending.py's lists) before anything is done, and its arguments are decoded by admit.py. A
connection's statements run here, on the check's connection, with psycopg's plain tuple rows; the rows
cross as data and the answer's row factory makes its rows over there. A transaction lent is the
check's own `with conn.transaction()` block, entered here and ended here when the answer's block ends.
"""

from __future__ import annotations

import asyncio
import keyword
from typing import Any

import psycopg

from course.grading.boundary import lending, wire
from course.grading.boundary.admit import AnswerDecoder
from course.grading.boundary.lending import Lender, LendingEncoder, Refused
from course.grading.boundary.peer import Peer
from course.grading.boundary.wire import Channel, Closed, WireError


CONNECTION_METHODS = frozenset("execute executemany transaction commit rollback close cancel parameter_status".split())
RANDOM_METHODS = frozenset("words seed".split())


class BoundaryError(Exception):
    """What came back across the boundary breaks its rules (a malformed value, an unknown class)."""


class AnswerProcessGone(Closed):
    """The answer's process ended (or broke the protocol) while a check waited for it."""


class TrustedSide:
    """One end of the channel: serves calls on lent objects; sends the checks' calls."""

    def __init__(self, channel: Channel):
        self.lender = Lender()
        self.encoder = LendingEncoder(self.lender)
        self.decoder = AnswerDecoder(self.lender)
        self.peer = Peer(channel, side="t", serve=self._serve, error_reply=self._error_reply, max_served=16,
                         name="checks")

    # -- the checks ask ---------------------------------------------------------------------------------

    def request(self, op: str, **fields: Any) -> Any:
        """Send an operation (its fields already encoded); the decoded value, or raise what it raised."""
        try:
            reply = self.peer.request({"op": op, **fields})
        except Closed as error:
            raise AnswerProcessGone(f"the process running the notebook's code ended ({error})") from None
        try:
            if reply["k"] == "err":
                error = self.decoder.decode(reply.get("error"))
            else:
                return self.decoder.decode(reply.get("value"))
        except WireError as error:
            raise BoundaryError(f"what the notebook's code sent back could not be read: {error}") from None
        raise error if isinstance(error, Exception) else BoundaryError("an error reply that is no exception")

    # -- the answer asks --------------------------------------------------------------------------------

    def _serve(self, message: dict) -> dict:
        op = message.get("op")
        loan = self.lender.loan(message.get("target"))
        if op == "call":
            args = [self.decoder.decode(a) for a in wire.items(message.get("args", []))]
            kwargs = {keyword_name(k): self.decoder.decode(v) for k, v in _mapping(message.get("kwargs", {})).items()}
            return {"value": self.encoder.encode(self._call(loan, message.get("method"), args, kwargs))}
        if op == "get":
            return {"value": self.encoder.encode(self._get(loan, message.get("name")))}
        if op == "set":
            self._set(loan, message.get("name"), self.decoder.decode(message.get("value")))
            return {"value": None}
        raise Refused(f"no operation {str(op)[:30]!r} on lent objects")

    def _call(self, loan: lending.Loan, method: Any, args: list, kwargs: dict) -> Any:
        value, kind = loan.value, loan.kind
        if kind == "connection" and method in CONNECTION_METHODS:
            return getattr(self, f"_connection_{method}")(value, *args, **kwargs)
        if kind == "transaction" and method == "exit":
            return self._transaction_exit(loan, *args)
        if kind == "random" and method == "words":  # the next n 32-bit words of its Mersenne Twister
            (count,) = args
            if type(count) is not int or not 0 < count <= 65_536:
                raise Refused("words: a count from 1 to 65,536")
            return [value.getrandbits(32) for _ in range(count)]
        if kind == "random" and method == "seed":
            return value.seed(*args[:1], version=kwargs.get("version", 2) if kwargs.get("version") in (1, 2) else 2)
        if kind == "callable" and method is None:
            return _awaited(value(*args, **kwargs))
        if kind == "object" and method in lending.exposed_for(value).methods:
            return _awaited(getattr(value, method)(*args, **kwargs))
        raise Refused(f"{_what(loan)} lent to your code cannot do {str(method)[:60]!r} across the grading boundary")

    def _get(self, loan: lending.Loan, name: Any) -> Any:
        value, kind = loan.value, loan.kind
        if kind == "connection" and name in lending.CONNECTION_READABLE:
            return getattr(value, name)
        if kind == "connection" and type(name) is str and name.startswith("info.") \
                and name[5:] in lending.CONNECTION_INFO:
            return getattr(value.info, name[5:])
        if kind == "object" and name in lending.exposed_for(value).attributes:
            return getattr(value, name)
        raise Refused(f"{_what(loan)} lent to your code has no attribute {str(name)[:60]!r} it may read")

    def _set(self, loan: lending.Loan, name: Any, new: Any) -> None:
        if loan.kind == "connection" and name in lending.CONNECTION_SETTABLE and (new is None or isinstance(new, int)):
            setattr(loan.value, name, new)
            return
        raise Refused(f"{_what(loan)} lent to your code: {str(name)[:60]!r} cannot be set")

    def _error_reply(self, error: BaseException) -> dict:
        return {"error": self.encoder.exception(error, 0)}

    # -- a lent connection -----------------------------------------------------------------------------

    def _connection_execute(self, conn, query, params=None, *, prepare=None, binary=None) -> dict:
        with conn.cursor(row_factory=psycopg.rows.tuple_row) as cursor:
            cursor.execute(_query(query), _params(params), prepare=_optional_bool(prepare),
                           binary=_optional_bool(binary))
            return {"sets": _result_sets(cursor)}

    def _connection_executemany(self, conn, query, params_seq, *, returning=False) -> dict:
        if type(params_seq) is not list:
            raise TypeError("executemany takes a sequence of parameters")
        with conn.cursor(row_factory=psycopg.rows.tuple_row) as cursor:
            cursor.executemany(_query(query), [_params(p) for p in params_seq], returning=bool(returning))
            return {"sets": _result_sets(cursor) if returning else [_one_set(cursor, rows=False)]}

    def _connection_transaction(self, conn, savepoint_name=None, force_rollback=False) -> dict:
        if savepoint_name is not None and type(savepoint_name) is not str:
            raise TypeError("savepoint_name must be a string or None")
        manager = conn.transaction(savepoint_name, bool(force_rollback))
        transaction = manager.__enter__()
        loan_id = self.lender.lend(transaction, "transaction", extra=manager)
        return {"transaction": loan_id, "savepoint_name": transaction.savepoint_name}

    def _transaction_exit(self, loan: lending.Loan, outcome: Any = "ok") -> bool:
        manager = loan.extra
        if outcome == "ok":
            return bool(manager.__exit__(None, None, None))
        if outcome == "rollback":  # psycopg.Rollback aimed at this block (or at none): it ends here
            error = psycopg.Rollback(loan.value)
        elif outcome == "error":
            error = _LearnerCodeRaised("an exception left the block in the learner's code")
        else:
            raise Refused("a transaction ends with ok, rollback or error")
        return bool(manager.__exit__(type(error), error, None))

    def _connection_commit(self, conn) -> None:
        conn.commit()

    def _connection_rollback(self, conn) -> None:
        conn.rollback()

    def _connection_close(self, conn) -> None:
        conn.close()

    def _connection_cancel(self, conn) -> None:
        conn.cancel()

    def _connection_parameter_status(self, conn, name) -> str | None:
        return conn.info.parameter_status(str(name))


class _LearnerCodeRaised(Exception):
    """Stands in, on this side, for the exception that left a `with conn.transaction():` in their code."""


def _what(loan: lending.Loan) -> str:
    return {"connection": "the connection", "transaction": "the transaction", "random": "the random generator",
            "callable": "the function"}.get(loan.kind, f"the {type(loan.value).__name__}")


def keyword_name(name: Any) -> str:
    if type(name) is not str or not name.isidentifier() or keyword.iskeyword(name) or name.startswith("__"):
        raise Refused(f"not a keyword argument name: {str(name)[:40]!r}")
    return name


def _mapping(value: Any) -> dict:
    if type(value) is not dict:
        raise WireError("keyword arguments were expected as an object")
    return value


def _query(query: Any) -> Any:
    if isinstance(query, (str, bytes, psycopg.sql.Composable)):
        return query
    raise TypeError(f"a query is a str or a psycopg.sql composition, not {type(query).__name__}")


def _params(params: Any) -> Any:
    if params is None or isinstance(params, (list, tuple, dict)):
        return params
    raise TypeError(f"query parameters are a list, a tuple or a dict, not {type(params).__name__}")


def _optional_bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _result_sets(cursor: psycopg.Cursor) -> list[dict]:
    sets = [_one_set(cursor)]
    while cursor.nextset():
        sets.append(_one_set(cursor))
    return sets


def _one_set(cursor: psycopg.Cursor, rows: bool = True) -> dict:
    description = [[column.name, column.type_code] for column in cursor.description] if cursor.description else None
    found = None
    if rows and description is not None:
        found = cursor.fetchmany(lending.MAX_ROWS + 1)
        if len(found) > lending.MAX_ROWS:
            raise RuntimeError(f"a statement returned more than {lending.MAX_ROWS:,} rows: too many to cross "
                               "the grading boundary")
    return {"description": description, "rows": found, "rowcount": cursor.rowcount,
            "status": cursor.statusmessage}


def _awaited(value: Any) -> Any:
    """What a lent coroutine function returns, run to its end (on a loop of this thread's own)."""
    if asyncio.iscoroutine(value):
        return asyncio.run(value)
    return value
