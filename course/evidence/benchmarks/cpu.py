"""CPU time spent, read from /proc: what a drain cost the processes that drained and the database.

Wall-clock rates swing with what else a shared machine runs; the CPU seconds a job costs hardly do (a
process waiting for a core spends none). So every drain also records these, per job.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICK_S = 1 / os.sysconf("SC_CLK_TCK")  # /proc counts CPU time in ticks: 10 ms on Linux


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (fields[1] is the parent's pid)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def process_seconds(pids: list[int]) -> float:
    """User + system CPU time so far of these processes (all their threads)."""
    fields = [f for f in map(_stat, pids) if f]
    return sum(int(f[11]) + int(f[12]) for f in fields) * TICK_S  # utime, stime


def server_seconds(postmaster_pid: int | None) -> float:
    """CPU time so far of a PostgreSQL server: the postmaster, the processes it runs now (backends, WAL
    writer, ...) and those it has reaped (cutime, cstime): a backend that ends mid-drain still counts."""
    fields = _stat(postmaster_pid) if postmaster_pid else None
    if not fields:
        return 0.0
    total = sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    for stat in Path("/proc").glob("[0-9]*/stat"):
        child = _stat(int(stat.parent.name))
        if child and int(child[1]) == postmaster_pid:
            total += int(child[11]) + int(child[12])
    return total * TICK_S


def exiting_children(parent_pid: int | None) -> list[int]:
    """The parent's children that have exited and wait to be reaped (zombies): their CPU time is
    counted nowhere until the parent reaps them (then in its cutime and cstime)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        child = _stat(int(stat.parent.name))
        if child and int(child[1]) == parent_pid and child[0] in ("Z", "X"):
            found.append(int(stat.parent.name))
    return found


@dataclass(frozen=True)
class Spent:
    """CPU seconds of the draining processes (client) and of the server, from one moment to another."""

    client_s: float
    server_s: float

    def __sub__(self, earlier: "Spent") -> "Spent":
        return Spent(self.client_s - earlier.client_s, self.server_s - earlier.server_s)
