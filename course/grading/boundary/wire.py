"""The grading boundary's wire: frames of JSON, and how each value is written into them.

A frame is a 4-byte big-endian length and that many bytes of UTF-8 JSON. JSON carries None, bools,
ints, strings and lists as themselves; every other value is an object {"$": tag, ...}:

    tuple, ntuple (a named tuple: its field names and values), dict (key/value pairs, any keys),
    set, frozenset, bytes (base64), float (only nan and ±inf), datetime, date, time, timedelta,
    decimal, uuid, ellipsis, enum (class, value), obj (a dataclass: class, fields), sql (a
    psycopg.sql composition), json (psycopg's Json/Jsonb, already dumped to text), exc (an exception),
    ref (an object the trusted side lends: calls only), mine (a lent object sent back), opaque (what
    the answer's side could not write as data: its type and repr, equal to nothing).

Nothing here runs code named by the other side: a class is looked up, by name, only by a Decoder
subclass that decides which names it accepts (the trusted side's is an allowlist; see lending.py).
Decoding has limits (frame size, nesting depth, string length of an int), so a hostile peer can make
a decode fail, never hang or exhaust the decoding side.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import decimal
import enum
import json
import math
import socket
import struct
import threading
import uuid
from typing import Any

MAX_FRAME = 64 << 20  # bytes: a result of a million small rows fits; a hostile 4 GB length does not
MAX_DEPTH = 64  # nesting of containers in one value
MAX_TEXT = 10_000  # characters of a repr or message we keep


class WireError(Exception):
    """A frame or a value that breaks the protocol: the peer is broken or hostile."""


class Closed(Exception):
    """The other side is gone (its process ended, or it closed the channel)."""


# -- frames --------------------------------------------------------------------------------------------


class Channel:
    """One end of a socket carrying frames; send() may be called from any thread."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self._send_lock = threading.Lock()

    def send(self, message: dict) -> None:
        data = json.dumps(message, separators=(",", ":"), allow_nan=False, ensure_ascii=False).encode()
        if len(data) > MAX_FRAME:
            raise WireError(f"a message of {len(data):,} bytes is over the limit of {MAX_FRAME:,}")
        with self._send_lock:
            try:
                self.sock.sendall(struct.pack(">I", len(data)) + data)
            except OSError as error:
                raise Closed(str(error)) from None

    def receive(self) -> dict:
        """The next message; Closed at the end of the stream."""
        (length,) = struct.unpack(">I", self._exactly(4))
        if length > MAX_FRAME:
            raise WireError(f"a frame of {length:,} bytes announced; the limit is {MAX_FRAME:,}")
        try:
            message = json.loads(self._exactly(length), parse_constant=_no_constants)
        except (ValueError, RecursionError) as error:
            raise WireError(f"a frame that is not JSON: {first_words(error)}") from None
        if not isinstance(message, dict):
            raise WireError("a frame that is not a JSON object")
        return message

    def _exactly(self, n: int) -> bytes:
        chunks, left = [], n
        while left:
            try:
                chunk = self.sock.recv(min(left, 1 << 20))
            except OSError as error:
                raise Closed(str(error)) from None
            if not chunk:
                raise Closed("the other side closed the channel")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def _no_constants(name: str):
    raise ValueError(f"{name} is not JSON")


def first_words(error: BaseException, limit: int = 300) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# -- values --------------------------------------------------------------------------------------------

PLAIN = (type(None), bool, int, str)


class Encoder:
    """Writes a value as JSON-able data. Subclasses decide what to do with what is not data: `other`."""

    def encode(self, value: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise WireError(f"a value nested more than {MAX_DEPTH} deep")
        if isinstance(value, PLAIN) and type(value) in PLAIN:
            return value
        kind = type(value)
        if kind is float:
            return value if math.isfinite(value) else {"$": "float", "v": repr(value)}
        if kind is list:
            return [self.encode(item, depth + 1) for item in value]
        if kind is tuple:
            return {"$": "tuple", "v": [self.encode(item, depth + 1) for item in value]}
        if kind is dict:
            return {"$": "dict", "v": [[self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in value.items()]}
        if kind in (set, frozenset):
            return {"$": kind.__name__, "v": [self.encode(item, depth + 1) for item in value]}
        if kind is bytes:
            return {"$": "bytes", "v": base64.b64encode(value).decode()}
        if kind is dt.datetime:
            return {"$": "datetime", "v": value.isoformat()}
        if kind is dt.date:
            return {"$": "date", "v": value.isoformat()}
        if kind is dt.time:
            return {"$": "time", "v": value.isoformat()}
        if kind is dt.timedelta:
            return {"$": "timedelta", "v": [value.days, value.seconds, value.microseconds]}
        if kind is decimal.Decimal:
            return {"$": "decimal", "v": str(value)}
        if kind is uuid.UUID:
            return {"$": "uuid", "v": value.hex}
        if value is Ellipsis:
            return {"$": "ellipsis"}
        return self.other(value, depth)

    def other(self, value: Any, depth: int) -> Any:
        """What is not plain data: subclasses lend it, write a named tuple, a dataclass, an enum..."""
        return self.opaque(value)

    @staticmethod
    def opaque(value: Any) -> dict:
        try:
            text = repr(value)
        except Exception as error:  # noqa: BLE001 — a repr may raise anything
            text = f"<{type(value).__name__}: its repr raised {type(error).__name__}>"
        return {"$": "opaque", "type": qualified(type(value)), "repr": text[:MAX_TEXT]}

    def structured(self, value: Any, depth: int) -> dict | None:
        """A named tuple, an enum member or a dataclass instance, written as data; None if it is none of these."""
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):
            return {"$": "ntuple", "names": [str(n) for n in type(value)._fields],
                    "v": [self.encode(item, depth + 1) for item in value]}
        if isinstance(value, enum.Enum):
            return {"$": "enum", "cls": qualified(type(value)), "v": self.encode(value.value, depth + 1)}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {"$": "obj", "cls": qualified(type(value)),
                    "fields": {f.name: self.encode(getattr(value, f.name), depth + 1)
                               for f in dataclasses.fields(value)}}
        return None


class DataEncoder(Encoder):
    """Named tuples, enums and dataclasses field by field; anything else opaque (its type and repr)."""

    def other(self, value: Any, depth: int) -> Any:
        structured = self.structured(value, depth)
        return structured if structured is not None else self.opaque(value)


class Decoder:
    """Reads what an Encoder wrote. The tags that name a class or an object are left to subclasses."""

    def decode(self, data: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise WireError(f"a value nested more than {MAX_DEPTH} deep")
        if data is None or type(data) in (bool, int, str, float):
            return data
        if type(data) is list:
            return [self.decode(item, depth + 1) for item in data]
        if type(data) is not dict:
            raise WireError(f"a value of JSON type {type(data).__name__}")
        tag = data.get("$")
        try:
            if tag == "tuple":
                return tuple(self.decode(item, depth + 1) for item in _list(data["v"]))
            if tag == "dict":
                return {self._key(self.decode(k, depth + 1)): self.decode(v, depth + 1) for k, v in _pairs(data["v"])}
            if tag in ("set", "frozenset"):
                items = [self._key(self.decode(item, depth + 1)) for item in _list(data["v"])]
                return set(items) if tag == "set" else frozenset(items)
            if tag == "bytes":
                return base64.b64decode(_str(data["v"]), validate=True)
            if tag == "float":
                text = _str(data["v"])
                if text not in ("nan", "inf", "-inf"):
                    raise WireError(f"not a special float: {text[:20]!r}")
                return float(text)
            if tag == "datetime":
                return dt.datetime.fromisoformat(_str(data["v"]))
            if tag == "date":
                return dt.date.fromisoformat(_str(data["v"]))
            if tag == "time":
                return dt.time.fromisoformat(_str(data["v"]))
            if tag == "timedelta":
                days, seconds, micro = (_int(x) for x in _list(data["v"]))
                return dt.timedelta(days=days, seconds=seconds, microseconds=micro)
            if tag == "decimal":
                return decimal.Decimal(_str(data["v"])[:1000])
            if tag == "uuid":
                return uuid.UUID(hex=_str(data["v"]))
            if tag == "ellipsis":
                return Ellipsis
            return self.other(tag, data, depth)
        except WireError:
            raise
        except (KeyError, TypeError, ValueError, ArithmeticError, OverflowError, RecursionError) as error:
            raise WireError(f"a malformed {tag!r} value: {first_words(error)}") from None

    def other(self, tag: Any, data: dict, depth: int) -> Any:
        raise WireError(f"a value tagged {str(tag)[:40]!r}, which this side does not accept")

    @staticmethod
    def _key(value: Any) -> Any:
        """A dict key or set member must be hashable (a list is not): refuse it before Python does."""
        try:
            hash(value)
        except TypeError:
            raise WireError(f"an unhashable {type(value).__name__} as a dict key or set member") from None
        return value


def _list(value: Any) -> list:
    if type(value) is not list:
        raise WireError("a list was expected")
    return value


def _pairs(value: Any) -> list:
    pairs = _list(value)
    if any(type(pair) is not list or len(pair) != 2 for pair in pairs):
        raise WireError("key/value pairs were expected")
    return pairs


def _str(value: Any) -> str:
    if type(value) is not str:
        raise WireError("a string was expected")
    return value


def _int(value: Any) -> int:
    if type(value) is not int:
        raise WireError("an int was expected")
    return value


string, integer, items = _str, _int, _list  # for the decoders of lending.py and facades.py


class Opaque:
    """A value the answer returned that cannot cross as data (an object of its own class, a function):
    it shows its type and repr, and is equal to nothing but itself."""

    __slots__ = ("type_name", "text")

    def __init__(self, type_name: str, text: str):
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return self.text if self.text.startswith("<") else f"<{self.type_name}: {self.text}>"

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)
