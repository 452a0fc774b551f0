"""The answer's process: `python -m course.grading.boundary.host FD` runs one notebook's cells and
serves the checks' calls to what they define, over the socket FD. It decides nothing; it is not
trusted (it runs the learner's code, and is started in the grader's sandbox).

Operations the checks' side sends:
    setup      the notebook's setup-tagged cells, run once (a hang here costs one time limit)
    cell       an exercise's cell, run in a copy of the setup's namespace: the answers it defines
               (functions: by name, for `call`; values, such as a quiz's answers: as data)
    call       one answer, with arguments (data, and facades of what the check lends: facades.py)
    many       one answer, called for each of a list of arguments in turn (one crossing for thousands)
    pickle     one answer, cloudpickled here, for a worker process of the grader's sandbox
    spy/unspy  report each call the answer makes to a name (a global of its cell, or module.name)

Whatever the learner's code raises goes back described: its class (and the classes it derives from),
its arguments as data, and the line of the learner's code it came from.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import itertools
import json
import linecache
import os
import socket
import sys
import time
import traceback
from typing import Any

import cloudpickle
import psycopg.sql
from psycopg.types.json import Json, Jsonb

from course.grading.boundary import facades, wire
from course.grading.notebooks import NOTEBOOK_MODULE, running_as_notebook, without_magics
from course.grading.boundary.peer import Peer
from course.grading.boundary.wire import MAX_TEXT, Channel, Decoder, Encoder, Opaque, WireError, qualified


def unpickled_answer(blob: bytes):
    """In a worker the sandbox started: the answer the checks pickled through its process (trusted.Answer)."""
    return cloudpickle.loads(blob)


class AnswerEncoder(Encoder):
    """What the answer's side sends: data; lent things as themselves; everything else opaque."""

    def other(self, value: Any, depth: int) -> Any:
        if isinstance(value, facades.Lent):
            return {"$": "mine", "id": value._boundary_id}
        if isinstance(value, BaseException):
            return describe_exception(value, self)
        if isinstance(value, (Json, Jsonb)):  # siblings in psycopg, not parent and child
            # dumps is None unless the answer gave one: psycopg then dumps with the standard json module.
            text = (value.dumps or json.dumps)(value.obj)
            return {"$": "json", "binary": isinstance(value, Jsonb), "text": text}
        if isinstance(value, psycopg.sql.Composable):
            return sql_data(value, self, depth)
        structured = self.structured(value, depth)
        if structured is not None:
            return structured
        for base, convert in ((bool, bool), (int, int.__int__), (float, float.__float__), (str, str.__str__),
                              (bytes, bytes), (bytearray, bytes), (list, list), (tuple, tuple), (dict, dict),
                              (set, set), (frozenset, frozenset)):
            if isinstance(value, base):  # a subclass of a builtin: sent as the builtin it is
                return self.encode(convert(value), depth)
        return self.opaque(value)


def sql_data(value: psycopg.sql.Composable, encoder: Encoder, depth: int) -> dict:
    if isinstance(value, psycopg.sql.SQL):
        return {"$": "sql", "kind": "SQL", "v": value._obj}
    if isinstance(value, psycopg.sql.Identifier):
        return {"$": "sql", "kind": "Identifier", "v": list(value._obj)}
    if isinstance(value, psycopg.sql.Literal):
        return {"$": "sql", "kind": "Literal", "v": encoder.encode(value._obj, depth + 1)}
    if isinstance(value, psycopg.sql.Placeholder):
        return {"$": "sql", "kind": "Placeholder", "name": value._obj, "format": value._format.value}
    if isinstance(value, psycopg.sql.Composed):
        return {"$": "sql", "kind": "Composed", "v": [sql_data(part, encoder, depth + 1) for part in value._obj]}
    raise TypeError(f"a psycopg.sql {type(value).__name__} cannot cross the grading boundary")


def describe_exception(error: BaseException, encoder: Encoder) -> dict:
    def data(value):
        try:
            return encoder.encode(value, 1)
        except (TypeError, WireError, RecursionError):
            return Encoder.opaque(value)

    try:
        message = str(error)[:MAX_TEXT]
    except Exception:  # noqa: BLE001 — a __str__ of theirs may raise
        message = "(its message could not be shown)"
    return {"$": "exc", "cls": qualified(type(error)), "mro": [qualified(c) for c in type(error).__mro__[1:]],
            "args": [data(a) for a in error.args[:10]] if isinstance(error.args, tuple) else [],
            "msg": message, "token": getattr(error, "__boundary_token__", None), "where": learner_line(error),
            "tb": "".join(traceback.format_exception(error))[-MAX_TEXT:]}


def learner_line(error: BaseException) -> str:
    """'line 4: return rows[0]' — the innermost line of a notebook cell the error passed through."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if f.filename.startswith("<") and not f.filename.startswith(("<frozen", "<string>"))]
    if not frames:
        return ""
    frame = frames[-1]
    return f"line {frame.lineno}: {frame.line.strip()}" if frame.line else f"line {frame.lineno}"


class AnswerDecoder(Decoder):
    """What the checks' side sends: data, facades of what it lends, its exceptions and values rebuilt."""

    def __init__(self, link: facades.Link):
        self.link = link
        self._facades: dict[int, Any] = {}

    def other(self, tag: Any, data: dict, depth: int) -> Any:
        if tag == "ref":
            ref = wire.integer(data["id"])
            if ref not in self._facades:
                self._facades[ref] = facades.facade(self.link, ref, wire.string(data["kind"]), dict(data.get("info") or {}))
            return self._facades[ref]
        if tag == "ntuple":
            import collections

            names = [wire.string(n) for n in wire.items(data["names"])]
            return collections.namedtuple("Row", names, rename=True)(*(self.decode(v, depth + 1) for v in data["v"]))
        if tag == "enum":
            return _class(data["cls"])(self.decode(data["v"], depth + 1))
        if tag == "obj":
            return _rebuilt(_class(data["cls"]), {k: self.decode(v, depth + 1) for k, v in data["fields"].items()})
        if tag == "exc":
            return self._exception(data, depth)
        if tag == "opaque":
            return Opaque(str(data["type"]), str(data["repr"]))
        return super().other(tag, data, depth)

    def _exception(self, data: dict, depth: int) -> BaseException:
        args = [self.decode(a, depth + 1) for a in data.get("args", [])]
        try:
            cls = _class(data["cls"])
            if not (isinstance(cls, type) and issubclass(cls, BaseException)):
                raise TypeError
        except (ImportError, AttributeError, TypeError, ValueError):
            cls = RuntimeError
            args = [data.get("msg", "")]
        try:
            error = cls(*args)
        except Exception:  # noqa: BLE001 — another signature: set what it carries
            error = cls.__new__(cls)
            error.args = tuple(args)
        for name, value in (data.get("attrs") or {}).items():
            try:
                setattr(error, name, self.decode(value, depth + 1))
            except (AttributeError, TypeError, WireError):
                pass
        try:
            error.__boundary_token__ = data.get("token")
        except AttributeError:
            pass
        return error


def _class(name: str) -> Any:
    module_name, qualname = _split(wire.string(name))
    value: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def _split(name: str) -> tuple[str, str]:
    """'a.b.C.D' -> the longest importable module prefix and the rest."""
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            importlib.import_module(module_name)
        except ImportError:
            continue
        return module_name, ".".join(parts[cut:])
    raise ImportError(name)


def _rebuilt(cls: type, fields: dict) -> Any:
    try:
        return cls(**fields)
    except Exception:  # noqa: BLE001 — fields not in __init__: set them as they are
        value = object.__new__(cls)
        for name, item in fields.items():
            object.__setattr__(value, name, item)
        return value


# -- serving the checks -------------------------------------------------------------------------------------


class AnswerSide:
    """The notebook's namespaces and the channel: what `facades.Link` asks goes through here."""

    def __init__(self, channel: Channel):
        self.encoder = AnswerEncoder()
        self.decoder = AnswerDecoder(self)
        self.peer = Peer(channel, side="h", serve=self._serve, error_reply=self._error_reply, listen=True, max_served=256,
                         name="answers")
        self.base: dict[str, Any] = {"__name__": NOTEBOOK_MODULE}
        self.notebook = "notebook"
        self.cells: dict[str, dict[str, Any]] = {}
        self.spies: dict[int, tuple] = {}
        self._tokens = itertools.count(1)

    # -- facades.Link -----------------------------------------------------------------------------------

    def call(self, target: int, method: str | None, args: tuple, kwargs: dict) -> Any:
        return self._ask({"op": "call", "target": target, "method": method,
                          "args": self.encoder.encode(list(args)),
                          "kwargs": {str(k): self.encoder.encode(v) for k, v in kwargs.items()}})

    def get(self, target: int, name: str) -> Any:
        return self._ask({"op": "get", "target": target, "name": name})

    def set(self, target: int, name: str, value: Any) -> None:
        self._ask({"op": "set", "target": target, "name": name, "value": self.encoder.encode(value)})

    def _ask(self, fields: dict) -> Any:
        reply = self.peer.request(fields)
        if reply["k"] == "err":
            error = self.decoder.decode(reply.get("error"))
            raise error if isinstance(error, BaseException) else RuntimeError(str(error))
        return self.decoder.decode(reply.get("value"))

    # -- what the checks ask ----------------------------------------------------------------------------

    def _serve(self, message: dict) -> dict:
        op = message.get("op")
        if op == "setup":
            self.notebook = str(message.get("notebook", "notebook"))
            for index, source in enumerate(message.get("sources", [])):
                self._run(source, f"<{self.notebook} setup cell {index}>", self.base)
            return {"value": None}
        if op == "cell":
            exercise = str(message["exercise"])
            namespace = dict(self.base)
            self.cells[exercise] = namespace
            self._run(str(message["source"]), f"<{self.notebook} {exercise} cell>", namespace)
            return {"value": self.encoder.encode({name: self._entry(namespace[name])
                                                  for name in message.get("names", []) if name in namespace})}
        if op == "call":
            function = self._answer(message["answer"])
            _environment(message.get("env") or {})
            args = self.decoder.decode(message.get("args", []))
            kwargs = {k: self.decoder.decode(v) for k, v in (message.get("kwargs") or {}).items()}
            result = function(*args, **kwargs)
            if message.get("awaited") and inspect.isawaitable(result):
                result = asyncio.run(_wait(result))
            return {"value": self.encoder.encode(result)}
        if op == "many":  # one answer, called for each (args, kwargs) in turn: one crossing for all
            function = self._answer(message["answer"])
            _environment(message.get("env") or {})
            results = [function(*self.decoder.decode(args), **{k: self.decoder.decode(v) for k, v in kwargs.items()})
                       for args, kwargs in message.get("calls", [])]
            return {"value": self.encoder.encode(results)}
        if op == "pickle":
            return {"value": self.encoder.encode(cloudpickle.dumps(self._answer(message["answer"])))}
        if op == "spy":
            return {"value": self._spy(self._answer(message["answer"]), str(message["name"]), message.get("module"),
                                       self.decoder.decode(message["callback"]))}
        if op == "unspy":
            self._unspy(message.get("token"))
            return {"value": None}
        if op == "update":
            table = getattr(importlib.import_module(str(message["module"])), str(message["name"]))
            entries = self.decoder.decode(message["entries"])
            before = {key: table[key] for key in entries if key in table}
            table.update(entries)
            token = next(self._tokens)
            self.spies[token] = ("table", table, entries, before)
            return {"value": token}
        if op == "restore":
            found = self.spies.pop(message.get("token"), None)
            if found and found[0] == "table":
                _, table, entries, before = found
                for key in entries:
                    table.pop(key, None)
                table.update(before)
            return {"value": None}
        raise ValueError(f"no operation {str(op)[:30]!r}")

    def _error_reply(self, error: BaseException) -> dict:
        return {"error": describe_exception(error, self.encoder)}

    def _run(self, source: str, filename: str, namespace: dict) -> None:
        source = without_magics(source)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        with running_as_notebook():
            exec(compile(source, filename, "exec"), namespace)  # noqa: S102 — the learner's cell, in its sandbox

    def _entry(self, value: Any) -> dict:
        if callable(value) and not isinstance(value, type):
            return {"callable": True, "meta": {
                "name": str(getattr(value, "__name__", "")), "qualname": str(getattr(value, "__qualname__", "")),
                "doc": getattr(value, "__doc__", None) if isinstance(getattr(value, "__doc__", None), str) else None,
                "coroutine": inspect.iscoroutinefunction(value)}}
        return {"value": value}

    def _answer(self, key: Any) -> Any:
        exercise, name = key
        try:
            return self.cells[exercise][name]
        except KeyError:
            raise LookupError(f"no answer {name!r} for {exercise}") from None

    def _spy(self, function: Any, name: str, module_name: Any, callback: Any) -> int | None:
        namespace = getattr(function, "__globals__", {})
        module = importlib.import_module(module_name) if module_name else None
        real = getattr(module, name, None) if module is not None else namespace.get(name)
        if real is None:
            return None

        def watched(*args, **kwargs):
            try:
                callback(*args, **kwargs)
            except Exception:  # noqa: BLE001 — the check's ear, not the learner's call: it goes on
                pass
            return real(*args, **kwargs)

        in_namespace = namespace.get(name) is real
        if in_namespace:
            namespace[name] = watched
        if module is not None:
            setattr(module, name, watched)
        token = next(self._tokens)
        self.spies[token] = (namespace if in_namespace else None, module, name, real)
        return token

    def _unspy(self, token: Any) -> None:
        found = self.spies.pop(token, None)
        if found and found[0] != "table":
            namespace, module, name, real = found
            if namespace is not None:
                namespace[name] = real
            if module is not None:
                setattr(module, name, real)


async def _wait(awaitable):
    return await awaitable


def _environment(changes: dict) -> None:
    zone = os.environ.get("TZ")
    for name, value in changes.items():
        if value is None:
            os.environ.pop(str(name), None)
        else:
            os.environ[str(name)] = str(value)
    if os.environ.get("TZ") != zone:  # a check that runs the answer with another local clock (lab 11)
        time.tzset()


def _graded_elsewhere(exercise_id: str, *args, **kwargs) -> None:
    print(f"{exercise_id}: checked by the grader, not in this process")


def main(argv: list[str]) -> int:
    sock = socket.socket(fileno=int(argv[0]))
    os.environ.setdefault("MPLBACKEND", "Agg")
    import course.grading

    # A notebook's own check("NN.x") and reveal(...) calls: the checks are the grader's (in class grading
    # its sandbox cannot even read them), so here they say so and return, as a passing cell would.
    course.grading.check = course.grading.reveal = _graded_elsewhere
    side = AnswerSide(Channel(sock))
    side.peer.start()
    side.peer.wait()  # until the checks' side closes the channel (or dies)
    sys.stdout.flush()
    os._exit(0)  # the learner's threads are not waited for


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
