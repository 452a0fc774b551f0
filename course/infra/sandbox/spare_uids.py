"""Uids for root's sandboxes: numbers no account has and no process runs as, each held by one sandbox
while it lives (its processes are then told apart from everyone else's by their uid alone).

    uid, lock = reserve()      a random one from UID_BASE on, locked against other sandboxes of this
                               process and of other graders on this machine (the kernel drops the lock
                               when we die)
    release(uid, lock)         once no process of that uid is left
    lock_file(uid)             the file that lock is on
"""

from __future__ import annotations

import fcntl
import os
import pwd
import random
import tempfile
from pathlib import Path

from course.errors import CourseError
from course.infra.sandbox import procfs

UID_BASE, UID_SPAN = 2_100_000_000, 1 << 20  # far above accounts, and below 2**31 for tools that sign uids


def reserve() -> tuple[int, int]:
    """(uid, the descriptor of its lock)."""
    folder = _uid_locks()
    folder.mkdir(mode=0o700, exist_ok=True)
    for _ in range(1000):
        uid = UID_BASE + random.randrange(UID_SPAN)
        try:
            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        lock = os.open(lock_file(uid), os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock)
            continue
        if not procfs.processes_of_uid(uid):
            return uid, lock
        release(uid, lock)
    raise CourseError("found no unused uid for a sandbox in 1000 tries")


def release(uid: int, lock: int) -> None:
    lock_file(uid).unlink(missing_ok=True)  # a lock file exists while its uid is in use
    os.close(lock)


def lock_file(uid: int) -> Path:
    """The file whose lock holds `uid` (the warden removes it when the sandbox's caller died)."""
    return _uid_locks() / str(uid)


def _uid_locks() -> Path:
    """Where the locks on sandbox uids live (root's, 0700)."""
    return Path("/run" if Path("/run").is_dir() else tempfile.gettempdir()) / "course-sandbox-uids"
