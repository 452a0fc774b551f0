"""A seccomp filter: system calls a sandboxed process may not make, refused with an errno (it sees an
ordinary error, as if the feature were missing) rather than killed.

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

    sandbox_filter(truncate_uncontrolled=False, metadata=True).install()
    Filter().deny("keyctl", errno.ENOSYS).deny("socket", errno.EACCES, arg0=AF_UNIX).install()

Only the standard library is used: the sandbox's warden loads this before anything else may load.
"""

from __future__ import annotations

import ctypes
import errno as errnos
import socket
from dataclasses import dataclass, field

from course.infra import linux

_LD_ABS_W, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_RET_KILL_PROCESS, _RET_ERRNO, _RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (arg0's low 32 bits: the ABIs are little-endian)
_X32_BIT = 0x40000000
_SECCOMP_MODE_FILTER = 2


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def available() -> bool:
    """Can this process install a filter (Linux with CONFIG_SECCOMP_FILTER, an architecture we know)?"""
    if not linux.supported():
        return False
    try:
        with open("/proc/sys/kernel/seccomp/actions_avail") as actions:
            return "errno" in actions.read().split()
    except OSError:
        return False


@dataclass
class Filter:
    denied: list[tuple[str, int, int | None]] = field(default_factory=list)

    def deny(self, name: str, errno: int, arg0: int | None = None) -> "Filter":
        """Refuse the call `name` with `errno`; with `arg0`, only when its first argument is that value."""
        self.denied.append((name, errno, arg0))
        return self

    def program(self) -> list[tuple[int, int, int, int]]:
        """The filter as classic BPF: (code, jump if true, jump if false, k) instructions."""
        numbers = linux.SYSCALLS[linux.MACHINE]
        code = [(_LD_ABS_W, 0, 0, _ARCH), (_JEQ, 1, 0, linux.AUDIT_ARCH[linux.MACHINE]),
                (_RET, 0, 0, _RET_KILL_PROCESS), (_LD_ABS_W, 0, 0, _NR)]
        if linux.MACHINE == "x86_64":  # x32 calls carry this bit and reach other entry points
            code += [(_JGE, 0, 1, _X32_BIT), (_RET, 0, 0, _RET_ERRNO | errnos.ENOSYS)]
        for name, errno, arg0 in self.denied:
            if arg0 is None:
                code += [(_JEQ, 0, 1, numbers[name]), (_RET, 0, 0, _RET_ERRNO | errno)]
            else:  # on a match of the call but not of its argument, load the call's number again
                code += [(_JEQ, 0, 4, numbers[name]), (_LD_ABS_W, 0, 0, _ARG0), (_JEQ, 0, 1, arg0),
                         (_RET, 0, 0, _RET_ERRNO | errno), (_LD_ABS_W, 0, 0, _NR)]
        return code + [(_RET, 0, 0, _RET_ALLOW)]

    def install(self) -> None:
        """Apply to this thread and every process it starts, for good. Needs no_new_privs set first."""
        code = self.program()
        instructions = (_Instruction * len(code))(*[_Instruction(*i) for i in code])
        program = _Program(len(code), instructions)
        linux.prctl(linux.PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(program))


METADATA_CALLS = ("chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime",
                  "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
                  "lremovexattr", "fremovexattr", "setxattrat", "removexattrat")


def sandbox_filter(truncate_uncontrolled: bool, metadata: bool) -> Filter:
    """The calls a sandboxed process may not make (this module's docstring says why each); `metadata`:
    also every call changing a file's mode, owner, times or extended attributes."""
    rules = Filter().deny("socket", errnos.EACCES, arg0=socket.AF_UNIX)
    for name in ("io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key", "request_key"):
        rules.deny(name, errnos.ENOSYS)
    if truncate_uncontrolled:
        rules.deny("truncate", errnos.EACCES)
    if metadata:
        for name in METADATA_CALLS:
            if name in linux.SYSCALLS[linux.MACHINE]:  # aarch64 has only the *at forms
                rules.deny(name, errnos.EPERM)
    return rules
