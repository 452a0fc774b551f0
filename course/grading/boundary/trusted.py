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

What the answer asks of the objects it was lent is serving.py's to answer. What the checks decide, they
decide in this process, from what they observed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from course.infra import processes
from course.grading.boundary.launch import launch_host, plain_launch  # noqa: F401 (plain_launch: part of the interface)
from course.grading.boundary.lending import Refused
from course.grading.boundary.serving import AnswerProcessGone, BoundaryError, TrustedSide, keyword_name
from course.grading.boundary.wire import Channel, Closed


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

    def many(self, calls: list[tuple[tuple, dict]]) -> list:
        """[self(*args, **kwargs) for args, kwargs in calls], run over there in one crossing, in order;
        the first exception stops it, and is raised."""
        return self._host.call_many(self, calls)

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


class AnswerHost:
    """The process that runs one notebook's cells, and the channel to it."""

    def __init__(self, process: subprocess.Popen, side: TrustedSide):
        self.process, self.side = process, side
        self._base_env = dict(os.environ)
        self._last_raw, self._changes = dict(os.environ._data), {}

    @classmethod
    def start(cls, *, cwd: Path, log: Path, env: dict[str, str] | None = None,
              launch: Callable[..., subprocess.Popen] = plain_launch) -> "AnswerHost":
        return cls.adopt(*launch_host(cwd=cwd, log=log, env=env, launch=launch))

    @classmethod
    def adopt(cls, process: subprocess.Popen, ours: socket.socket) -> "AnswerHost":
        """The host launch_host started (it imports while we do), with our end of its channel."""
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
        if found is not None and type(found) is not dict:  # a forged reply: its shape is not the protocol's
            raise LoadError(BoundaryError(f"the notebook's process answered the cell with a {type(found).__name__}, "
                                          "not its names: it broke the grading protocol"))
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
                                kwargs={keyword_name(k): side.encoder.encode(v) for k, v in kwargs.items()},
                                env=self._environment_changes(), awaited=awaited)

    def call_many(self, answer: Answer, calls: list[tuple[tuple, dict]]) -> list:
        side = self.side
        with side.lender.scope():
            encoded = [[side.encoder.encode(list(args)), {keyword_name(k): side.encoder.encode(v) for k, v in kwargs.items()}]
                       for args, kwargs in calls]
            return self.request("many", answer=answer.key, calls=encoded, env=self._environment_changes())

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
            # a variable a check set and then took away (processes.environment) is taken away over there too
            changes.update({k: self._base_env.get(k) for k in self._changes if k not in changes})
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
