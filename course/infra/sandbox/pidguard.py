"""Calls that name another process (signals, priorities, resource limits), allowed only when that process
is one of the sandbox's own: where nothing else keeps the sandbox from your processes.

That is a sandbox running as your own uid, with no PID namespace (user namespaces refused: Ubuntu 24.04).
There a sandboxed process could renice or prlimit the grader (Landlock does not control these) and,
where Landlock has no signal scope (ABI < 6: Ubuntu 24.04's own 6.8 kernel, for one), SIGKILL the
warden (and so escape its sweep), the grader, or anything else of yours. Its seccomp filter holds these calls, and the warden answers each here: go
on if the target descends from the warden (the sandbox's processes all do: it is their subreaper), else
EPERM. The arguments judged are plain numbers, so what is judged is what runs; a pid freed and reused by
another process between the look and the call (microseconds, the whole pid space apart) is the limit.

    guard = PidGuard(root=os.getpid())     # in the warden
    guard.answer_next(listener)            # when the filter's listener is readable
"""

from __future__ import annotations

from course.infra.sandbox import procfs, seccomp

# call -> (index of the argument saying what kind of target, or None for "a process"; index of the target)
# Kinds as the calls number them: a process (0 means the caller itself), a process group, a user.
GUARDED = {
    "kill": (None, 0), "tkill": (None, 0), "tgkill": (None, 0), "rt_sigqueueinfo": (None, 0),
    "rt_tgsigqueueinfo": (None, 0), "prlimit64": (None, 0), "sched_setaffinity": (None, 0),
    "sched_setscheduler": (None, 0), "sched_setparam": (None, 0), "sched_setattr": (None, 0),
    "setpriority": (0, 1), "ioprio_set": (0, 1),
}
KINDS = {"setpriority": {0: "process", 1: "group", 2: "user"}, "ioprio_set": {1: "process", 2: "group", 3: "user"}}


def _signed(value: int) -> int:
    """A pid_t argument: the low 32 bits, signed."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


class PidGuard:
    def __init__(self, root: int):
        self.root = root  # the warden: every process of the sandbox descends from it; it is not one of them

    def answer_next(self, listener: int) -> None:
        """Judge the next held call and let it go on or refuse it."""
        held = seccomp.receive(listener)
        if held is not None:
            seccomp.answer(listener, held, self.allows(held))

    def allows(self, held: seccomp.Notification) -> bool:
        kind_arg, target_arg = GUARDED[held.call]
        kind = "process" if kind_arg is None else KINDS[held.call].get(held.args[kind_arg], "user")
        target = _signed(held.args[target_arg])
        if kind == "user":
            return False
        if kind == "group" or target < -1:  # kill(-pgid): a process group
            group = abs(target) or procfs.process_group(held.pid)
            return self.holds_group(group)
        if target == -1:  # kill(-1): every process it may signal
            return False
        if target == 0:  # itself (or, for kill, its own process group: one of the sandbox's)
            return True
        return self.holds(procfs.thread_group(target))

    def holds(self, pid: int | None) -> bool:
        """Is `pid` one of the sandbox's processes (a descendant of the warden, not the warden)?"""
        for _ in range(4096):
            if pid is None or pid <= 1 or pid == self.root:
                return False
            parent = procfs.parent(pid)
            if parent == self.root:
                return True
            pid = parent
        return False

    def holds_group(self, group: int) -> bool:
        """A process group is the sandbox's when one of its processes is in it: a process can join only a
        group of its own session, and every session in the sandbox was made there (the command's setsid)."""
        return any(procfs.process_group(pid) == group for pid in procfs.descendants(self.root))
