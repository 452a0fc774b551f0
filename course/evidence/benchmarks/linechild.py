"""A child process we talk to in lines of JSON (the drainers and the peers), with a timeout on every
answer and its stderr in a log file whose tail a failure quotes."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time

from course.infra.processes import log_dir

DEADLINE_S = 600.0  # a drain that takes longer than this is broken, not slow


class LineChild:
    """A child process we talk to in lines of JSON, with a timeout on every answer."""

    def __init__(self, name: str, argv: list[str]):
        self.name = name
        self.log_path = log_dir() / f"{name}-{os.getpid()}-{time.monotonic_ns()}.log"
        with open(self.log_path, "wb") as log:
            self.popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                          bufsize=0)

    def send(self, message: str | dict) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self.popen.stdin.write(text.encode() + b"\n")

    def receive(self, timeout: float = DEADLINE_S) -> dict:
        deadline = time.monotonic() + timeout
        data = b""
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.name} did not answer within {timeout:.0f} s")
            if select.select([self.popen.stdout], [], [], left)[0]:
                chunk = os.read(self.popen.stdout.fileno(), 65536)
                if not chunk:
                    raise RuntimeError(f"{self.name} exited (code {self.popen.wait()}): {self.log_tail()}")
                data += chunk
        return json.loads(data)

    def log_tail(self, lines: int = 8) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def close_input(self) -> None:
        """"We are done": the child leaves its loop and exits (stop() waits for it)."""
        if self.popen.poll() is None and not self.popen.stdin.closed:
            self.popen.stdin.close()

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.close_input()
            try:
                self.popen.wait(15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)
