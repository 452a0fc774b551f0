"""The checks' side of the boundary: the answer's process, started and ended; its answers, called.

    host = AnswerHost.start(scratch=..., log=..., launch=confine.start)
    host.setup("03_postgres_queue.ipynb", setup_sources)     # the notebook's setup cells, run once
    answers = host.exercise("03.claim", cell_source, ["claim"])
    report = run_check("03.claim", **answers)                # claim is an Answer: calls cross over
    host.stop()

An Answer is the learner's function as the checks hold it: calling it runs it in the answer's process,
with what the check passes lent (lending.py) and what it returns decoded as data. Pickled — the fault
injector sends a handler to its workers — it becomes the function itself, pickled *by the answer's
process* (so a handler that holds a notebook lock still cannot be pickled), and the spec that holds
it is marked: only the grader's sandbox may start the child that loads it (processes.spawn). This
process never loads it.

TrustedSide serves what the answer asks of the objects it was lent; everything it is asked is checked
against lending.py's lists first. What the checks decide, they decide here, from what they observed.
"""

from __future__ import annotations

import asyncio
import contextlib
import keyword
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg

from course.infra import processes
from course.grading.boundary import lending, wire
from course.grading.boundary.lending import AnswerDecoder, Lender, LendingEncoder, Refused
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
            kwargs = {_keyword(k): self.decoder.decode(v) for k, v in _mapping(message.get("kwargs", {})).items()}
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


def _keyword(name: Any) -> str:
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


# -- the learner's function, as the checks hold it ---------------------------------------------------------


class Answer:
    """A function the notebook defined, living in the answer's process. Call it like the function."""

    def __init__(self, host: "AnswerHost", exercise_id: str, name: str, meta: dict):
        self._host, self._exercise, self._name = host, exercise_id, name
        self.__name__ = str(meta.get("name") or name)
        self.__qualname__ = str(meta.get("qualname") or name)
        self.__doc__ = meta.get("doc") if isinstance(meta.get("doc"), str) else None
        self.__module__ = "__notebook__"
        self.is_coroutine_function = bool(meta.get("coroutine"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.is_coroutine_function:
            return asyncio.to_thread(self._host.call, self, args, kwargs, awaited=True)
        return self._host.call(self, args, kwargs)

    def __reduce__(self):
        from course.grading.boundary import host

        blob = self._host.pickled(self)
        processes.untrusted_code_pickled()
        return host.unpickled_answer, (blob,)

    @contextlib.contextmanager
    def spying(self, name: str, before: Callable[..., object], *, module: str | None = None) -> Iterator[None]:
        """While inside, before(*args, **kwargs) hears each call the answer makes to `name` (a global
        of its cell, or module.name), then the real one runs: the arguments arrive as data. Only what
        the answer's process says it called: evidence for a message, never for a verdict on its own."""
        with self._host.side.lender.scope():
            token = self._host.request("spy", answer=self.key, name=name, module=module,
                                       callback=self._host.side.encoder.encode(before))
            try:
                yield
            finally:
                if token is not None:
                    with contextlib.suppress(Closed, Refused):
                        self._host.request("unspy", token=token)

    @contextlib.contextmanager
    def updating(self, module: str, name: str, entries: dict) -> Iterator[None]:
        """While inside, the mapping `module.name` in the answer's process holds these entries too (a
        table the answer reads, grown by the check); put back as it was afterwards."""
        token = self._host.request("update", answer=self.key, module=module, name=name,
                                   entries=self._host.side.encoder.encode(entries))
        try:
            yield
        finally:
            with contextlib.suppress(Closed, Refused):
                self._host.request("restore", token=token)

    @property
    def key(self) -> list[str]:
        return [self._exercise, self._name]

    def __repr__(self) -> str:
        return f"<function {self.__qualname__} (the notebook's, run in its own process)>"


# -- the answer's process ------------------------------------------------------------------------------------


class LoadError(Exception):
    """The notebook's cells raised while loading: `error` is what they raised (decoded, with the line)."""

    def __init__(self, error: BaseException):
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error


def plain_launch(argv: list[str], *, env: dict, cwd: str, pass_fds: tuple, stdout) -> subprocess.Popen:
    """The process in a session of its own, nothing of ours open in it but the channel."""
    return subprocess.Popen(argv, env=env, cwd=cwd, pass_fds=pass_fds, stdin=subprocess.DEVNULL, stdout=stdout,
                            stderr=subprocess.STDOUT, start_new_session=True, close_fds=True, preexec_fn=_die_with_us)


def _die_with_us() -> None:
    """In the answer's process, before it runs: the kernel kills it when the checks' process dies."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL


class AnswerHost:
    """The process that runs one notebook's cells, and the channel to it."""

    def __init__(self, process: subprocess.Popen, side: TrustedSide):
        self.process, self.side = process, side
        self._base_env = dict(os.environ)
        self._last_raw, self._changes = dict(os.environ._data), {}

    @classmethod
    def start(cls, *, cwd: Path, log: Path, env: dict[str, str] | None = None,
              launch: Callable[..., subprocess.Popen] = plain_launch) -> "AnswerHost":
        ours, theirs = socket.socketpair()
        try:
            argv = [sys.executable, "-m", "course.grading.boundary.host", str(theirs.fileno())]
            with open(log, "ab") as out:
                process = launch(argv, env={**os.environ, **(env or {})}, cwd=str(cwd),
                                 pass_fds=(theirs.fileno(),), stdout=out)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        side = TrustedSide(Channel(ours))
        side.peer.start()
        return cls(process, side)

    def request(self, op: str, **fields: Any) -> Any:
        return self.side.request(op, **fields)

    def setup(self, notebook: str, sources: list[str]) -> None:
        """Run the notebook's setup cells, once, in the namespace every exercise cell starts from."""
        try:
            self.request("setup", notebook=notebook, sources=list(sources))
        except AnswerProcessGone:
            raise
        except Exception as error:  # noqa: BLE001 — what their cells raised, rebuilt
            raise LoadError(error) from None

    def exercise(self, exercise_id: str, source: str, names: list[str]) -> dict[str, Any]:
        """Run an exercise's cell (after the setup cells); the answers it defines, as the checks get them."""
        try:
            found = self.request("cell", exercise=exercise_id, source=source, names=list(names))
        except AnswerProcessGone:
            raise
        except Exception as error:  # noqa: BLE001
            raise LoadError(error) from None
        answers = {}
        for name, entry in (found or {}).items():
            if name not in names or type(entry) is not dict:
                continue
            if entry.get("callable"):
                answers[name] = Answer(self, exercise_id, name, entry.get("meta") or {})
            elif "value" in entry:
                answers[name] = entry["value"]
        return answers

    def call(self, answer: Answer, args: tuple, kwargs: dict, *, awaited: bool = False) -> Any:
        side = self.side
        with side.lender.scope():
            return self.request("call", answer=answer.key, args=side.encoder.encode(list(args)),
                                kwargs={_keyword(k): side.encoder.encode(v) for k, v in kwargs.items()},
                                env=self._environment_changes(), awaited=awaited)

    def pickled(self, answer: Answer) -> bytes:
        blob = self.request("pickle", answer=answer.key)
        if type(blob) is not bytes:
            raise RuntimeError("the answer's process sent no pickle")
        return blob

    def _environment_changes(self) -> dict:
        """What the checks changed in os.environ (processes.environment): the answer runs with it too."""
        raw = os.environ._data  # comparing the raw mapping is cheap; decoding it for every call is not
        if raw != self._last_raw:
            self._last_raw = dict(raw)
            now = dict(os.environ)
            changes: dict[str, str | None] = {k: v for k, v in now.items() if self._base_env.get(k) != v}
            changes.update({k: None for k in self._base_env if k not in now})
            self._changes = changes
        return self._changes

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> int | None:
        """End the channel and the process (its whole session); its exit code."""
        self.side.peer.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, 9)
        try:
            return self.process.wait(10)
        except subprocess.TimeoutExpired:
            return None
