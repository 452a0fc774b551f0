"""What the exam's run tells its workers: the kills are over, an attempt of a slow job was frozen, a frozen
attempt made its (stale) ack. One pipe per worker, written by the run alone.

    board = Board()                                  # the run's side (soak.py)
    fd = board.open()                                # before a worker starts: what was said so far is in it
    child = processes.python(..., env={ENV: str(fd)}, pass_fds=[fd]); board.started(fd)
    board.say(calm=True) | board.say(frozen=[job, attempt]) | board.say(released=job)

    heard = Heard.from_env()                         # a worker's side (worker.py): a thread reads its pipe
    heard.calm, heard.frozen(job, attempt), heard.released(job)

Why a pipe and not the history or a file: a worker runs the learner's pieces, and in class grading every
process of the notebook may write the folder they share; a marker there (calm) could be made by any of
them, and the history is the run's to keep (eventlog.Kept), which no worker can read. What a worker hears
comes from the run, and a worker can only stop hearing it (which costs its own run, not another's).
"""

from __future__ import annotations

import json
import os
import threading

ENV = "COURSE_EXAM_CUES"  # a worker's: the descriptor of its pipe from the run


class Board:
    """The run's side: every worker hears everything said, a worker started later too."""

    def __init__(self):
        self._said: list[bytes] = []
        self._ends: set[int] = set()  # our write end of each worker's pipe (its read end's number is reused)
        self._lock = threading.Lock()

    def open(self) -> int:
        """A pipe for a worker about to start, holding what was said so far: its read end."""
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        with self._lock:
            self._ends.add(write_end)
            for line in self._said:
                self._send(write_end, line)
        return read_end

    def started(self, read_end: int) -> None:
        """The worker holds its end: close ours."""
        os.close(read_end)

    def say(self, **cue) -> None:
        line = (json.dumps(cue) + "\n").encode()
        with self._lock:
            self._said.append(line)
            for write_end in list(self._ends):
                self._send(write_end, line)

    def close(self) -> None:
        with self._lock:
            for write_end in self._ends:
                os.close(write_end)
            self._ends.clear()

    def _send(self, write_end: int, line: bytes) -> None:
        try:
            os.write(write_end, line)  # a few short lines in all: a pipe's buffer holds them
        except (BrokenPipeError, BlockingIOError):
            self._ends.discard(write_end)  # that worker is gone (or reads nothing): it hears no more
            os.close(write_end)


class Heard:
    """A worker's side: what the run said so far, read from its pipe by a thread."""

    def __init__(self, fd: int | None):
        self.calm = False
        self._frozen: set[tuple[int, int]] = set()
        self._released: set[int] = set()
        if fd is not None:
            threading.Thread(target=self._listen, args=(fd,), daemon=True, name="exam-cues").start()

    @classmethod
    def from_env(cls) -> "Heard":
        value = os.environ.get(ENV)
        return cls(int(value) if value and value.isdigit() else None)

    def frozen(self, job: int, attempt: int) -> bool:
        return (job, attempt) in self._frozen

    def released(self, job: int) -> bool:
        return job in self._released

    def _listen(self, fd: int) -> None:
        try:
            with open(fd, "rb") as pipe:
                for line in pipe:
                    self._take(json.loads(line))
        except (OSError, ValueError):
            pass  # not a pipe of the run's, or a line it never wrote: nothing more to hear

    def _take(self, cue: dict) -> None:
        if cue.get("calm"):
            self.calm = True
        if "frozen" in cue:
            job, attempt = cue["frozen"]
            self._frozen.add((job, attempt))
        if "released" in cue:
            self._released.add(cue["released"])
