"""A seccomp filter: system calls a sandboxed process may not make, refused with an errno (it sees an
ordinary error, as if the feature were missing) rather than killed; and calls a supervisor answers.

What Landlock does not cover, we refuse here:
  - unix sockets of its own making (`socket(AF_UNIX, ...)`): Landlock (to ABI 7) lets a process connect to
    any named unix socket its uid may open: a D-Bus session bus (which starts processes outside any
    sandbox), an ssh agent, a Docker socket. `socketpair` stays allowed: nothing outside is reachable
    through it, and asyncio and subprocess use it. A sandboxed process reaches PostgreSQL over TCP.
  - io_uring, whose requests open sockets and files without the system calls this filter sees;
  - the kernel's keyrings (`keyctl`, `add_key`, `request_key`), which may hold the uid's secrets;
  - `truncate(path)` where Landlock is older than ABI 3 and so does not control it;
  - when the sandbox runs as your own uid, changing any file's metadata: mode, owner, times, extended
    attributes. Landlock does not control these, and your uid may change them on every file you own
    (a gradebook made world-writable or unreadable, a submission's time moved). Under an uid of its
    own the sandbox owns only its scratch files, and keeps these calls.
A call from another architecture's ABI (32-bit x86, x32) is killed: it would name other calls.

Calls to `notify` are held until a supervisor, reading the filter's listener, lets each go on or
refuses it (course.infra.sandbox.pidguard: calls that name another process). Only calls whose arguments are
plain values may be judged this way: a pointer's contents can change between the look and the call.

    listener = sandbox_filter(truncate_uncontrolled=False, metadata=True, guarded=("kill",)).install()

Only the standard library is used: the sandbox's warden loads this before anything else may load.
"""

from __future__ import annotations

import ctypes
import errno as errnos
import fcntl
import socket
import struct
from dataclasses import dataclass, field

from course.infra.sandbox import linux

_LD_ABS_W, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_RET_KILL_PROCESS, _RET_ERRNO, _RET_USER_NOTIF, _RET_ALLOW = 0x80000000, 0x00050000, 0x7FC00000, 0x7FFF0000
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data; argument i's low 32 bits at 16 + 8 i (little-endian ABIs)
_X32_BIT = 0x40000000
_SECCOMP_MODE_FILTER = 2
_SET_MODE_FILTER, _FILTER_FLAG_NEW_LISTENER = 1, 1 << 3
_NOTIF_RECV, _NOTIF_SEND = 0xC0502100, 0xC0182101  # _IOWR('!', 0|1, struct seccomp_notif|_resp)
_NOTIF = struct.Struct("=QIIiIQ6Q")  # id, pid, flags, then seccomp_data: nr, arch, ip, args[6]
_RESPONSE = struct.Struct("=QqiI")  # id, val, error, flags
_FLAG_CONTINUE = 1

FIOSETOWN, SIOCSPGRP, F_SETOWN, F_SETOWN_EX = 0x8901, 0x8902, 8, 15


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def _actions() -> set[str]:
    if not linux.supported():
        return set()
    try:
        with open("/proc/sys/kernel/seccomp/actions_avail") as actions:
            return set(actions.read().split())
    except OSError:
        return set()


def available() -> bool:
    """Can this process install a filter (Linux with CONFIG_SECCOMP_FILTER, an architecture we know)?"""
    return "errno" in _actions()


def can_notify() -> bool:
    """Can a filter hold calls for a supervisor (Linux 5.5+: user notification, and letting a call go on)?"""
    return "user_notif" in _actions()


@dataclass
class Filter:
    denied: list[tuple[str, int, tuple[int, int] | None]] = field(default_factory=list)
    notified: list[str] = field(default_factory=list)

    def deny(self, name: str, errno: int, where: tuple[int, int] | None = None) -> "Filter":
        """Refuse the call `name` with `errno`; with `where=(i, value)`, only when its argument i is value."""
        if name in linux.SYSCALLS[linux.MACHINE]:  # aarch64 lacks some old calls (chmod): nothing to refuse
            self.denied.append((name, errno, where))
        return self

    def notify(self, name: str) -> "Filter":
        """Hold the call `name` for the supervisor reading this filter's listener."""
        self.notified.append(name)
        return self

    def program(self) -> list[tuple[int, int, int, int]]:
        """The filter as classic BPF: (code, jump if true, jump if false, k) instructions."""
        numbers = linux.SYSCALLS[linux.MACHINE]
        code = [(_LD_ABS_W, 0, 0, _ARCH), (_JEQ, 1, 0, linux.AUDIT_ARCH[linux.MACHINE]),
                (_RET, 0, 0, _RET_KILL_PROCESS), (_LD_ABS_W, 0, 0, _NR)]
        if linux.MACHINE == "x86_64":  # x32 calls carry this bit and reach other entry points
            code += [(_JGE, 0, 1, _X32_BIT), (_RET, 0, 0, _RET_ERRNO | errnos.ENOSYS)]
        for name, errno, where in self.denied:
            if where is None:
                code += [(_JEQ, 0, 1, numbers[name]), (_RET, 0, 0, _RET_ERRNO | errno)]
            else:  # on a match of the call but not of its argument, load the call's number again
                index, value = where
                code += [(_JEQ, 0, 4, numbers[name]), (_LD_ABS_W, 0, 0, 16 + 8 * index), (_JEQ, 0, 1, value),
                         (_RET, 0, 0, _RET_ERRNO | errno), (_LD_ABS_W, 0, 0, _NR)]
        for name in self.notified:
            code += [(_JEQ, 0, 1, numbers[name]), (_RET, 0, 0, _RET_USER_NOTIF)]
        return code + [(_RET, 0, 0, _RET_ALLOW)]

    def install(self) -> int | None:
        """Apply to this thread and every process it starts, for good; needs no_new_privs set first.
        Returns the listener (a file descriptor) when calls are to be notified, else None."""
        code = self.program()
        instructions = (_Instruction * len(code))(*[_Instruction(*i) for i in code])
        program = _Program(len(code), instructions)
        if self.notified:
            return linux.syscall("seccomp", _SET_MODE_FILTER, _FILTER_FLAG_NEW_LISTENER, ctypes.byref(program))
        linux.prctl(linux.PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(program))
        return None


@dataclass(frozen=True)
class Notification:
    id: int
    pid: int  # the calling thread, as the supervisor sees it
    call: str
    args: tuple[int, ...]


def receive(listener: int) -> Notification | None:
    """The next held call (None when its caller died meanwhile)."""
    buffer = bytearray(_NOTIF.size)
    try:
        fcntl.ioctl(listener, _NOTIF_RECV, buffer, True)
    except OSError as error:
        if error.errno in (errnos.ENOENT, errnos.EINTR):
            return None
        raise
    id_, pid, _, nr, _, _, *args = _NOTIF.unpack(buffer)
    names = {number: name for name, number in linux.SYSCALLS[linux.MACHINE].items()}
    return Notification(id_, pid, names.get(nr, str(nr)), tuple(args))


def answer(listener: int, notification: Notification, allow: bool) -> None:
    """Let the held call go on as it was made, or fail it with EPERM."""
    response = (_RESPONSE.pack(notification.id, 0, 0, _FLAG_CONTINUE) if allow else
                _RESPONSE.pack(notification.id, 0, -errnos.EPERM, 0))
    try:
        fcntl.ioctl(listener, _NOTIF_SEND, bytearray(response), True)
    except OSError as error:
        if error.errno != errnos.ENOENT:  # its caller died while we looked: nothing to answer
            raise


def sandbox_filter(truncate_uncontrolled: bool, metadata: bool, guarded: tuple[str, ...] = ()) -> Filter:
    """The calls a sandboxed process may not make (this module's docstring says why each); `metadata`:
    also every call changing a file's mode, owner, times or extended attributes; `guarded`: calls that
    name another process, for the supervisor (and those naming one it cannot judge are refused)."""
    rules = Filter().deny("socket", errnos.EACCES, where=(0, socket.AF_UNIX))
    for name in ("io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key", "request_key"):
        rules.deny(name, errnos.ENOSYS)
    if truncate_uncontrolled:
        rules.deny("truncate", errnos.EACCES)
    if metadata:
        for name in METADATA_CALLS:
            rules.deny(name, errnos.EPERM)
    if guarded:
        rules.deny("pidfd_send_signal", errnos.ENOSYS)  # names its target by a descriptor: refused, not judged
        for where in ((1, F_SETOWN), (1, F_SETOWN_EX)):  # SIGIO/SIGURG sent to a process of its choosing
            rules.deny("fcntl", errnos.EPERM, where=where)
        for where in ((1, FIOSETOWN), (1, SIOCSPGRP)):
            rules.deny("ioctl", errnos.EPERM, where=where)
        for name in guarded:
            rules.notify(name)
    return rules


METADATA_CALLS = ("chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime",
                  "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
                  "lremovexattr", "fremovexattr", "setxattrat", "removexattrat")
