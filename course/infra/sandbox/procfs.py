"""What Linux's /proc says about processes: whose children they are, whose uid they run as, which PID
namespace they are in. Read-only, and a process that ends while we look is simply not listed.

    children(pid), descendants(pid)     from /proc/PID/task/*/children
    inner_child(parent, inner_pid)      the child whose pid inside its own PID namespace is `inner_pid`
    inner_pid(pid)                      its pid as it sees itself (in its own PID namespace): what it writes down
    parent(pid), thread_group(tid), process_group(pid)
    pids(), running(pid)                every process we can see; alive and not a zombie?
    uid_of(pid), processes_of_uid(uid), tasks_of_uid(uid)   (tasks: threads too, as RLIMIT_NPROC counts)
    pidns_of(pid)                       its PID namespace's inode
    has_environment_entry(pid, entry)   b"NAME=value" in its environment (ours or root's to read)
    command_line(pid)                   its argv, joined by spaces

Only the standard library is used: the sandbox's warden loads this before anything else may load.
(course.infra.processes.pid_alive says whether one pid lives; this module looks at many.)
"""

from __future__ import annotations

import os


def pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def children(pid: int) -> list[int]:
    """The children of `pid`, every thread's."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        return []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                found += [int(p) for p in listing.read().split()]
        except (FileNotFoundError, ProcessLookupError):
            pass
    return found


def descendants(pid: int) -> list[int]:
    found, todo = [], children(pid)
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children(child)
    return found


def _status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as status:
        return dict(line.rstrip("\n").split(":\t", 1) for line in status if ":\t" in line)


def inner_child(parent: int, inner_pid: int) -> int | None:
    """The pid, as we see it, of `parent`'s child whose pid in its own PID namespace is `inner_pid`."""
    for child in children(parent):
        try:
            if int(_status(child).get("NSpid", "0").split()[-1]) == inner_pid:
                return child
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
    return None


def inner_pid(pid: int) -> int | None:
    """`pid`'s pid as the process itself sees it (os.getpid() there: the last of NSpid, in its own PID
    namespace); `pid` where it has no namespace of its own or /proc does not say; None once it is gone."""
    try:
        return int(_status(pid).get("NSpid", str(pid)).split()[-1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    except ValueError:
        return pid


def running(pid: int) -> bool:
    """Alive and not a zombie (one that has ended but is not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def parent(pid: int) -> int | None:
    try:
        return int(_status(pid)["PPid"])
    except (OSError, KeyError, ValueError):
        return None


def thread_group(pid: int) -> int | None:
    """The process a thread id belongs to (a process's own pid gives itself)."""
    try:
        return int(_status(pid)["Tgid"])
    except (OSError, KeyError, ValueError):
        return None


def process_group(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def uid_of(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except FileNotFoundError:
        return None


def processes_of_uid(uid: int) -> list[int]:
    return [pid for pid in pids() if uid_of(pid) == uid]


def tasks_of_uid(uid: int) -> int:
    """Processes and threads whose real uid is `uid` (what RLIMIT_NPROC counts)."""
    count = 0
    for pid in pids():
        try:
            status = _status(pid)
            if int(status["Uid"].split()[0]) == uid:
                count += int(status["Threads"])
        except (OSError, KeyError, ValueError):
            pass
    return count


def pidns_of(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}/ns/pid").st_ino
    except OSError:
        return None


def has_environment_entry(pid: int, entry: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return entry in environ.read().split(b"\0")
    except OSError:
        return False


def command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"
