"""One run of an exercise's checks: what each check expected, what came back, and the smallest example
that shows a failure.

A check function receives a Trial and the learner's answers:

    @exercise_check("03.claim")
    def _(t: Trial, claim):
        box = t.scratch()                              # an empty schema of its own
        got = t.call(claim, box.conn, 30, during="claiming from an empty queue")
        t.expect("returns None when no job is waiting", got=got, expected=None,
                 example="an empty jobs table")

`t.call` runs learner code: a NotImplementedError means "not started"; any other exception fails the
check being made, with the exception's message. `t.require` is `t.expect` that stops the run when it
fails, for checks that the next ones build on.
"""

from __future__ import annotations

import ctypes
import reprlib
import sysconfig
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course.grading.scratch import ScratchSchema

NOTHING = object()
_short = reprlib.Repr()  # keyword arguments arrived in 3.12; we support 3.11
_short.maxstring = _short.maxother = 120
_short.maxlist = _short.maxdict = 8


class Stop(Exception):
    """Ends a trial early: a required check failed, or learner code raised."""


class NotStarted(Exception):
    """The learner's function still raises NotImplementedError."""


@dataclass(frozen=True)
class Attempt:
    """One call of learner code: what it returned, or the exception it raised (in one line, with the line
    of the learner's code it came from, and its type's name)."""
    value: Any = None
    error: str | None = None
    error_type: str | None = None
    error_bases: tuple[str, ...] = ()  # the names of its type and every base: "ValueError" in them, say


@dataclass
class Result:
    name: str
    passed: bool
    expected: Any = NOTHING
    got: Any = NOTHING
    example: str | None = None
    note: str | None = None  # e.g. "your function raised KeyError: 'order_id'"
    reached: bool = True  # False: never judged (an earlier check failed first); it counts as not passed


@dataclass
class Trial:
    exercise_id: str
    seed: int | None = None
    results: list[Result] = field(default_factory=list)
    not_started: str | None = None  # what is still a stub, in words
    notes: list[str] = field(default_factory=list)  # said under the checks, passed or failed (tell())
    _scratch: list[ScratchSchema] = field(default_factory=list)

    def scratch(self, *, queue_tables: bool = True) -> ScratchSchema:
        """A schema of this trial's own (dropped when the trial ends)."""
        box = ScratchSchema.create(self.exercise_id, queue_tables=queue_tables)
        self._scratch.append(box)
        return box

    def attempt(self, fn, *args, **kwargs) -> Attempt:
        """Run learner code and say what it did, as data: the one door every call of learner code goes
        through (`call` below is built on it). An exception is returned, not raised, for checks that
        compare it with the reference's; NotImplementedError still means "not started". Safe to use
        from a thread a check starts."""
        try:
            return Attempt(value=fn(*args, **kwargs))
        except NotImplementedError:
            self.not_started = f"`{getattr(fn, '__name__', 'your function')}` still raises NotImplementedError"
            raise NotStarted from None
        except Exception as error:  # noqa: BLE001 (learner code may raise anything; it is what we observe)
            return Attempt(error=describe(error), error_type=type(error).__name__,
                           error_bases=tuple(kind.__name__ for kind in type(error).__mro__))

    def attempt_within(self, seconds: float, fn, *args, during: str, example: str | None = None, **kwargs) -> Attempt:
        """`attempt`, for learner code that might never return (a loop whose exit it never reaches): after
        `seconds` (a bound on a hang, stretched by the machine's load) the check fails as `during`, says
        so, and ends the trial; the answer's thread is asked to stop (an exception raised into it at its
        next line of Python: the notebook is not left spinning)."""
        from course.infra.processes import patience

        outcome: list = []

        def run():
            try:
                outcome.append(self.attempt(fn, *args, **kwargs))
            except BaseException as error:  # noqa: BLE001 (NotStarted, or our stop: handed over as it is)
                outcome.append(error)

        thread = threading.Thread(target=run, daemon=True, name="check-answer")
        thread.start()
        thread.join(seconds * patience())
        if thread.is_alive():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(Stop))
            self.results.append(Result(during, False, example=example, note=f"your code did not return within "
                                       f"{seconds:g} s: a loop that never reaches its end? (it was stopped)"))
            raise Stop
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    def call(self, fn, *args, during: str, **kwargs):
        """Run learner code. Its failure is reported as a failed check named `during`, and ends the trial."""
        done = self.attempt(fn, *args, **kwargs)
        if done.error is not None:
            self.results.append(Result(during, False, note=f"your code raised {done.error}"))
            raise Stop
        return done.value

    def call_many(self, fn, calls: list[tuple[tuple, dict]], *, during: str) -> list:
        """fn(*args, **kwargs) for each (args, kwargs), in order, as `call` would; the results. In class
        grading the learner's function runs in its own process, and the calls go over in one crossing
        (thousands of draws of a random wait would otherwise be thousands of round trips)."""
        many = getattr(fn, "many", None)

        def each_call():
            return many(calls) if many is not None else [fn(*args, **kwargs) for args, kwargs in calls]

        each_call.__name__ = getattr(fn, "__name__", "your function")
        return self.call(each_call, during=during)

    def answer(self, name: str, value: Any) -> Any:
        """A quiz answer; `...` (the lab's placeholder) means not answered yet."""
        if value is Ellipsis:
            self.not_started = f"`{name}` is still `...`"
            raise NotStarted
        return value

    def expect(self, name: str, *, got: Any = NOTHING, expected: Any = NOTHING, ok: bool | None = None,
               example: str | None = None, note: str | None = None) -> bool:
        """Record one check: passed if `ok` is true, or else if got == expected."""
        passed = bool(ok) if ok is not None else got == expected
        self.results.append(Result(name, passed, expected, got, None if passed else example, note))
        return passed

    def not_reached(self, name: str, why: str) -> None:
        """Record a check the run never judged: neither passed nor failed, and not counted as passed."""
        self.results.append(Result(name, False, note=why, reached=False))

    def tell(self, line: str) -> None:
        """A line the report prints under its checks whatever they say: what the check tried, and how
        often a right answer fails it by chance (a statistical check's stated false-alarm rate)."""
        self.notes.append(line)

    def require(self, name: str, **kwargs) -> None:
        if not self.expect(name, **kwargs):
            raise Stop

    def close(self) -> None:
        for box in self._scratch:
            box.drop()
        self._scratch.clear()


def describe(error: BaseException) -> str:
    """'KeyError: order_id (line 4: ...)' — the error and the line of the learner's code it came from.

    When the error was raised inside a library (psycopg, the course package, the standard library) the
    line named is the learner's call into it — the innermost frame that is in the learner's code —
    never the library's own line, which the learner did not write and cannot change."""
    crossed = getattr(error, "__boundary__", None)  # raised in the notebook's own process (class grading)
    if crossed is not None:
        return f"{type(error).__name__}: {error}" + (f" ({crossed.line})" if crossed.line else "")
    frames = [f for f in traceback.extract_tb(error.__traceback__) if is_learner_code(f.filename)]
    where = f" (line {frames[-1].lineno}: {frames[-1].line.strip()})" if frames and frames[-1].line else ""
    return f"{type(error).__name__}: {error}{where}"


def checks_line(error: BaseException) -> str:
    """', who will want: course/grading/checks/lab13/publish_retry.py:384 broker.ensure_stream(...)': the
    innermost line of the course's own checks the error passed through, for its authors ('' if none)."""
    checks = Path(__file__).resolve().parent / "checks"
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if Path(f.filename).resolve().is_relative_to(checks)]
    if not frames:
        return ""
    root = Path(__file__).resolve().parents[2]
    return f", who will want: {Path(frames[-1].filename).resolve().relative_to(root)}:{frames[-1].lineno} " \
           f"{(frames[-1].line or '').strip()}"


_LIBRARY_DIRS = tuple(str(Path(p)) for p in {
    sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib"), sysconfig.get_path("purelib"),
    sysconfig.get_path("platlib"), str(Path(__file__).resolve().parents[1])} if p)  # .. the course package


def is_learner_code(filename: str) -> bool:
    """A notebook cell (Jupyter's ipykernel file, or '<06_x.ipynb 06.x cell 3>' as the checks load
    one) or a learner's own file; not the standard library, an installed package or the course."""
    if filename.startswith("<"):
        return not filename.startswith("<frozen ")
    path = str(Path(filename).resolve())
    return not path.startswith(_LIBRARY_DIRS) and "site-packages" not in path and "dist-packages" not in path


def short(value: Any) -> str:
    return _short.repr(value)
