"""The Linux system calls a sandbox needs that Python's `os` module lacks (on Python 3.11), through ctypes.

Each raises OSError with the kernel's errno, as `os` functions do. Only the standard library is used:
the sandbox's warden imports this before anything else is allowed to load.

    syscall(name, *args)        a raw system call by name, for this machine's architecture
    unshare(flags)              leave namespaces (CLONE_NEW*), os.unshare before Python 3.12
    mount(source, target, ...)  mount(2); MS_* flags below
    prctl(option, *args)        prctl(2); PR_* options below
"""

from __future__ import annotations

import ctypes
import os
import platform

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

# System call numbers differ by architecture; the sandbox knows the two Linux machines people run.
SYSCALLS = {
    "x86_64": {"landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446,
               "seccomp": 317, "socket": 41, "truncate": 76, "io_uring_setup": 425, "io_uring_enter": 426,
               "io_uring_register": 427, "add_key": 248, "request_key": 249, "keyctl": 250,
               "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
               "pidfd_send_signal": 424, "pidfd_getfd": 438,
               "chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452, "chown": 92, "fchown": 93,
               "lchown": 94, "fchownat": 260, "utime": 132, "utimes": 235, "futimesat": 261, "utimensat": 280,
               "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198,
               "fremovexattr": 199, "setxattrat": 463, "removexattrat": 466,
               "fcntl": 72, "ioctl": 16, "setpriority": 141, "prlimit64": 302, "sched_setaffinity": 203,
               "sched_setscheduler": 144, "sched_setparam": 142, "sched_setattr": 314, "ioprio_set": 251},
    "aarch64": {"landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446,
                "seccomp": 277, "socket": 198, "truncate": 45, "io_uring_setup": 425, "io_uring_enter": 426,
                "io_uring_register": 427, "add_key": 217, "request_key": 218, "keyctl": 219,
                "kill": 129, "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240,
                "pidfd_send_signal": 424, "pidfd_getfd": 438,
                "fchmod": 52, "fchmodat": 53, "fchmodat2": 452, "fchown": 55, "fchownat": 54, "utimensat": 88,
                "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15,
                "fremovexattr": 16, "setxattrat": 463, "removexattrat": 466,
                "fcntl": 25, "ioctl": 29, "setpriority": 140, "prlimit64": 261, "sched_setaffinity": 122,
                "sched_setscheduler": 119, "sched_setparam": 118, "sched_setattr": 274, "ioprio_set": 30},
}
# The value seccomp sees in `arch` for this machine's native calls (<linux/audit.h>).
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
MACHINE = platform.machine()

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_MOVE = 0x2000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36


def supported() -> bool:
    """Is this a Linux machine whose system call numbers we know?"""
    return platform.system() == "Linux" and MACHINE in SYSCALLS


def _checked(result: int) -> int:
    if result == -1:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return result


def syscall(name: str, *args) -> int:
    return _checked(_libc.syscall(SYSCALLS[MACHINE][name], *args))


def unshare(flags: int) -> None:
    _checked(_libc.unshare(ctypes.c_int(flags)))


def mount(source: str | None, target: str, fstype: str | None = None, flags: int = 0,
          data: str | None = None) -> None:
    def c(text):
        return None if text is None else os.fsencode(text)

    _libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    try:
        _checked(_libc.mount(c(source), c(target), c(fstype), flags, c(data)))
    except OSError as error:
        raise OSError(error.errno, f"{error.strerror}: mount {source or fstype} on {target}") from None


def prctl(option: int, *args: int) -> int:
    values = [ctypes.c_ulong(a) for a in args] + [ctypes.c_ulong(0)] * (4 - len(args))
    return _checked(_libc.prctl(ctypes.c_int(option), *values))
