"""The checks every public function runs on what its caller gives it, in one place.

Each check returns the value (as a plain int, float or str) or raises InvalidArgument (InvalidJob for a
name) with one line: which argument, what it must be, what it got, and what to pass instead. The queue,
the worker, the scheduler, the outbox and the course's calculators all use these, so the same mistake
reads the same everywhere.

    whole("limit", 0, low=1, high=10_000)        a whole number in a range (True is not a number)
    positive("arrival_rate", 11)                 a finite number above 0 (or 0 and above)
    seconds("lease_s", 30)                       a duration in seconds, at most a century
    name("queue", "emails")                      a queue, job type or task name
"""

from __future__ import annotations

import math
import numbers
import re

from course.errors import InvalidArgument, InvalidJob

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,99}")
MAX_SECONDS = 100 * 365 * 24 * 3600  # a delay or lease longer than a century is a mistake (and overflows)


def _ending(meaning: str, then: str) -> str:
    """The end of a message: what to pass (`meaning`), then what happened (`then`, e.g. nothing written)."""
    return "".join(f" {part}" for part in (f"Pass {meaning}." if meaning else "", then) if part)


def whole(kind: str, value: object, meaning: str = "", *, low: int = 1, high: int | None = None,
          then: str = "") -> int:
    """`value` as an int from `low` to `high` (no upper bound when None)."""
    is_whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not is_whole or value < low or (high is not None and value > high):
        bound = f", {low} or more" if high is None else f" from {low} to {high}"
        raise InvalidArgument(f"{kind} must be a whole number{bound}; got {value!r}.{_ending(meaning, then)}")
    return int(value)


def positive(kind: str, value: object, meaning: str = "", *, allow_zero: bool = False, then: str = "") -> float:
    """`value` as a finite float above 0 (or at least 0, with `allow_zero`)."""
    is_number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not is_number or not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = "0 or more" if allow_zero else "more than 0"
        raise InvalidArgument(f"{kind} must be a finite number, {bound}; got {value!r}.{_ending(meaning, then)}")
    return float(value)


def seconds(kind: str, value: object, meaning: str = "", *, allow_zero: bool = False,
            allow_negative: bool = False, high: float = MAX_SECONDS, then: str = "") -> float:
    """`value` as a float number of seconds: above 0 (or 0 and above, or any), and at most `high`."""
    is_number = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    if allow_negative:
        ok, bound = is_number, "a finite number"
    elif allow_zero:
        ok, bound = is_number and value >= 0, "0 or more"
    else:
        ok, bound = is_number and value > 0, "more than 0"
    if ok and value > high:
        ok, bound = False, "at most a century" if high == MAX_SECONDS else f"at most {high:g}"
    if not ok:
        raise InvalidArgument(f"{kind} is in seconds and must be {bound}; got {value!r}.{_ending(meaning, then)}")
    return float(value)


def name(kind: str, value: object, *, then: str = "Nothing was written.") -> str:
    """A queue, job type or task name: 1 to 100 letters, digits, '_', '.', ':' or '-'."""
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise InvalidJob(
            f"{kind} {value!r} is not a valid name: use 1 to 100 letters, digits, '_', '.', ':' or '-', "
            f"starting with a letter or '_' (e.g. 'send_receipt').{_ending('', then)}"
        )
    return value
