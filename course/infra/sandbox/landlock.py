"""Landlock: a process gives up, for itself and every process it starts, all file access but what it names,
TCP ports but those it names, and signals to processes outside it. No privilege and no namespace needed.

The kernel's Landlock grew in steps (ABI versions); we ask which one this kernel has and use what it
offers, saying what is missing rather than failing:

    ABI 1 (Linux 5.13)  files: read, write, execute, make, remove; ptrace only of its own descendants
    ABI 2 (5.19)        moving or linking a file to another folder (without it: always refused)
    ABI 3 (6.2)         truncating a file by its path (without it: not controlled)
    ABI 4 (6.7)         TCP: bind and connect, by port
    ABI 5 (6.10)        ioctl on device files
    ABI 6 (6.12)        no signals to, and no abstract unix sockets of, processes outside

    abi()                          this kernel's ABI version; 0 when Landlock is absent or disabled
    Rules(read, write, devices, tcp_connect, tcp_bind, network).restrict_self(abi)
                                   confine this process (it must have set no_new_privs, or be privileged)

Only the standard library is used: the sandbox's warden loads this before anything else may load.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field

from course.infra.sandbox import linux

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
BIND_TCP, CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # the rights a rule on a file may carry
READ = READ_FILE | READ_DIR | EXECUTE
# A scratch folder: everything but device nodes and named sockets.
WRITE = (READ_FILE | READ_DIR | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_FIFO
         | MAKE_SYM | REFER | TRUNCATE)

_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2


def handled_fs(abi: int) -> int:
    """The file rights Landlock controls at `abi` (each right it cannot control stays allowed)."""
    rights = (1 << 13) - 1 if abi >= 1 else 0
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def abi() -> int:
    """This kernel's Landlock ABI version: 0 when it has none, or has it disabled at boot."""
    if not linux.supported():
        return 0
    try:
        return linux.syscall("landlock_create_ruleset", None, ctypes.c_size_t(0),
                             ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except OSError:  # ENOSYS: too old; EOPNOTSUPP: built but not enabled (lsm= on the kernel's command line)
        return 0


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPort(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


@dataclass
class Rules:
    """What stays allowed: folders or files to read (and execute), folders to write in, device files to
    read and write (/dev/null), TCP ports to connect to and to bind. Everything else is refused."""

    read: list[str] = field(default_factory=list)
    write: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    tcp_connect: list[int] = field(default_factory=list)
    tcp_bind: list[int] = field(default_factory=list)
    network: bool = True  # False: leave TCP alone (a network namespace of its own confines it already)
    listable: list[str] = field(default_factory=list)  # folders whose entries may be listed, nothing more

    def restrict_self(self, abi: int) -> None:
        """Confine this process and its future children. Paths that do not exist are skipped."""
        fs = handled_fs(abi)
        net = BIND_TCP | CONNECT_TCP if abi >= 4 and self.network else 0
        scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
        attr = _RulesetAttr(fs, net, scoped)
        size = 8 if abi < 4 else 16 if abi < 6 else 24  # the struct as this kernel knows it
        ruleset = linux.syscall("landlock_create_ruleset", ctypes.byref(attr), ctypes.c_size_t(size),
                                ctypes.c_uint32(0))
        try:
            for paths, rights in ((self.read, READ), (self.write, WRITE), (self.devices, READ_FILE | WRITE_FILE),
                                  (self.listable, READ_DIR)):
                for path in paths:
                    self._allow_path(ruleset, path, rights & fs)
            if net:
                for ports, right in ((self.tcp_connect, CONNECT_TCP), (self.tcp_bind, BIND_TCP)):
                    for port in ports:
                        rule = _NetPort(right, port)
                        linux.syscall("landlock_add_rule", ruleset, _RULE_NET_PORT, ctypes.byref(rule), 0)
            linux.syscall("landlock_restrict_self", ruleset, 0)
        finally:
            os.close(ruleset)

    @staticmethod
    def _allow_path(ruleset: int, path: str, rights: int) -> None:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            return
        try:
            if not os.path.isdir(path):
                rights &= FILE_ONLY
            rule = _PathBeneath(rights, fd)
            linux.syscall("landlock_add_rule", ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
        finally:
            os.close(fd)
