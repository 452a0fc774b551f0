"""The sandbox's side of the warden (course.infra.sandbox.warden): what runs in the processes it forks,
before the command's code does.

    start_command(spec)     fork; in the child confine it (its session, limits, uid, no new privileges,
                            Landlock, the seccomp filter) and exec the command; say whether it started
    enter_namespaces(spec)  the warden's new PID (and IPC, and user) namespace, for its next child
    init_main(spec, ...)    PID 1 of that namespace: mounts a private tree (/proc, a tmpfs on the scratch
                            folder, the paths a private folder would hide), opens the network namespace's
                            listeners for the warden, starts the command and reaps until it ends

Like the warden, it imports only the standard library and this package's linux, landlock, seccomp,
pidguard and procfs: it runs under `python -I -S`, and nothing the sandbox could have written runs in it.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import signal
import socket
import struct

from course.infra.sandbox import landlock, linux, pidguard, procfs, seccomp

EXEC_FAILED = 127


# -- the command: everything between fork and exec ------------------------------------------------------


def _become(spec: dict, proc_mounted: bool, to_warden: socket.socket | None, report: int) -> None:
    """In the forked child: confine this process, then exec the command. Never returns."""
    os.setsid()  # a session of its own: no controlling terminal (TIOCSTI), and the caller's Ctrl-C is not its
    if spec["mountns"] and not spec["pidns"]:  # root where PID namespaces are not allowed: mounts still are
        mount_private_tree(spec, proc=False)
    for name, value in spec["limits"].items():  # a value, or [soft, hard]
        resource.setrlimit(getattr(resource, name), tuple(value) if isinstance(value, list) else (value, value))
    uid = spec["uid"]
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    _check_reachable(spec)
    os.chdir(spec["cwd"])
    rules = spec["landlock"]
    if rules:
        read = rules["read"] + (["/proc"] if proc_mounted else [])
        landlock.Rules(read, rules["write"], rules["devices"], rules["tcp_connect"], rules["tcp_bind"],
                       network=rules["network"], listable=rules.get("list", [])).restrict_self(rules["abi"])  # a namespace of its own: free
    if spec["seccomp"] is not None:
        rules = spec["seccomp"]
        listener = seccomp.sandbox_filter(rules["deny_truncate"], rules["deny_metadata"],
                                          tuple(pidguard.GUARDED) if rules["guard_pids"] else ()).install()
        if listener is not None:  # to the warden, which answers the held calls; never kept here
            socket.send_fds(to_warden, [b"L"], [listener])
            os.close(listener)
    for signum in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    passed = sorted(set(spec["pass_fds"]) | {0, 1, 2})
    for fd in passed:
        os.set_inheritable(fd, True)
    keep = sorted({*passed, report})  # `report` is close-on-exec: it lives until exec, to say what failed
    for low, high in zip([-1, *keep], [*keep, 65536]):  # close every other descriptor, ours included
        if low + 1 < high:  # closerange(n, n) closes everything from n on (Python 3.11's close_range)
            os.closerange(low + 1, high)
    os.execvpe(spec["argv"][0], spec["argv"], spec["env"])


def _check_reachable(spec: dict) -> None:
    """As the sandbox's uid, before Landlock: can it reach what it is allowed? Say which path if not."""
    for path in spec["landlock"]["read"] if spec["landlock"] else []:
        if os.path.exists(path) and not os.access(path, os.R_OK | (os.X_OK if os.path.isdir(path) else 0)):
            raise PermissionError(f"the sandbox's uid {os.getuid()} cannot read {path}: make it readable to "
                                  f"others (and its folders enterable), or copy it to a folder that is")
    if not os.access(spec["cwd"], os.W_OK | os.X_OK):
        raise PermissionError(f"the sandbox's uid {os.getuid()} cannot write in its scratch folder {spec['cwd']}")


def start_command(spec: dict, proc_mounted: bool = False) -> tuple[int, str | None, int | None]:
    """Fork the command. (pid, None, listener) once it has exec'd, the listener of its seccomp filter's
    held calls if it has one; (pid, why, None) when it could not start."""
    read_end, write_end = os.pipe2(os.O_CLOEXEC)  # closed by a successful exec: EOF means it started
    ours, theirs = socket.socketpair() if spec["seccomp"] and spec["seccomp"]["guard_pids"] else (None, None)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            if ours:
                ours.close()
            _become(spec, proc_mounted, theirs, write_end)
        except BaseException as error:  # noqa: BLE001 — anything at all: say it to the parent and leave
            os.write(write_end, f"{type(error).__name__}: {error}".encode()[:4000])
        os._exit(EXEC_FAILED)
    os.close(write_end)
    said = b""
    while chunk := os.read(read_end, 4096):
        said += chunk
    os.close(read_end)
    listener = None
    if ours:
        theirs.close()
        ours.setblocking(False)
        try:
            _, fds, _, _ = socket.recv_fds(ours, 1, 1)
            listener = fds[0] if fds else None
        except BlockingIOError:
            pass  # it failed before its filter: `said` says why
        ours.close()
    return pid, said.decode(errors="replace") or None, listener


# -- init: the first process of a new PID namespace ----------------------------------------------------


def mount_private_tree(spec: dict, proc: bool) -> bool:
    """In a mount namespace of its own: revealed paths, the scratch tmpfs and, with `proc` (in a new PID
    namespace), a /proc showing only the sandbox's processes. Returns whether /proc was mounted (where it
    is not — a container that masks parts of the host's /proc — the sandbox gets no /proc at all)."""
    linux.unshare(linux.CLONE_NEWNS)
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)  # nothing we mount leaks to the host
    if spec["uid"] is not None:  # root's sandbox runs as another uid: show it what root's folders hide
        plan = reveal_plan(spec["uid"], [*spec["read"], spec["folder"]])
        for index, (over, paths) in enumerate(sorted(plan.items())):
            stage = os.path.join(spec["folder"], f"stage-{index}")
            os.mkdir(stage, 0o700)
            _reveal(over, paths, stage)
    if spec["tmpfs"]:
        uid, gid = (spec["uid"], spec["uid"]) if spec["uid"] is not None else (os.getuid(), os.getgid())
        linux.mount("tmpfs", spec["scratch"], "tmpfs", linux.MS_NOSUID | linux.MS_NODEV,
                    f"size={spec['scratch_bytes']},nr_inodes={spec['scratch_files']},mode=0700,uid={uid},gid={gid}")
    if spec.get("shm"):  # POSIX shared memory and semaphores (multiprocessing's locks): its own, not the host's
        uid, gid = (spec["uid"], spec["uid"]) if spec["uid"] is not None else (os.getuid(), os.getgid())
        linux.mount("tmpfs", "/dev/shm", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC,
                    f"size={spec['scratch_bytes']},mode=0700,uid={uid},gid={gid}")
    if not proc:
        return False
    try:
        linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
        return True
    except OSError:
        return False


def reveal_plan(uid: int, paths: list[str]) -> dict[str, list[str]]:
    """For each topmost folder `uid` may not enter (a private /root), the paths under it the sandbox needs
    (a path under another one needs nothing more)."""
    plan: dict[str, list[str]] = {}
    for path in paths:
        closed = _first_closed_folder(uid, path)
        if closed:
            kept = plan.setdefault(closed, [])
            if not any(_inside(path, other) for other in kept):
                kept[:] = [other for other in kept if not _inside(other, path)] + [path]
    return plan


def _first_closed_folder(uid: int, path: str) -> str | None:
    """The topmost folder above `path` that `uid` (with no groups) may not enter, if any."""
    parts = path.strip("/").split("/")
    for depth in range(1, len(parts)):
        folder = "/" + "/".join(parts[:depth])
        try:
            info = os.stat(folder)
        except FileNotFoundError:
            return None
        bit = 0o100 if info.st_uid == uid else 0o010 if info.st_gid == uid else 0o001
        if not info.st_mode & bit:
            return folder
    return None


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _reveal(over: str, paths: list[str], stage: str) -> None:
    """Cover `over` (a folder the sandbox's uid may not enter, such as /root) with a tmpfs holding only
    `paths`, bind-mounted read-only from the original: the Python installation under /root, not the rest."""
    linux.mount("tmpfs", stage, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "mode=0755,size=1m")
    for path in paths:
        target = os.path.join(stage, os.path.relpath(path, over))
        for folder in _folders_between(stage, os.path.dirname(target)):
            os.makedirs(folder, mode=0o755, exist_ok=True)
        if os.path.isdir(path):
            os.makedirs(target, mode=0o755, exist_ok=True)
        else:
            open(target, "a").close()
        linux.mount(path, target, None, linux.MS_BIND | linux.MS_REC)
        linux.mount(None, target, None, linux.MS_BIND | linux.MS_REMOUNT | linux.MS_RDONLY)
    linux.mount(stage, over, None, linux.MS_MOVE)


def _folders_between(top: str, bottom: str) -> list[str]:
    folders = []
    while bottom != top and bottom.startswith(top):
        folders.append(bottom)
        bottom = os.path.dirname(bottom)
    return folders[::-1]


_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = struct.Struct("16sh22x")  # struct ifreq: the interface's name, then (of its union) the flags


def private_network(ports: list[int]) -> list[socket.socket]:
    """A network namespace of its own, loopback up, and a listener on 127.0.0.1 for each of `ports`."""
    linux.unshare(linux.CLONE_NEWNET)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
        _, flags = _IFREQ.unpack(fcntl.ioctl(control, _SIOCGIFFLAGS, _IFREQ.pack(b"lo", 0)))
        fcntl.ioctl(control, _SIOCSIFFLAGS, _IFREQ.pack(b"lo", flags | _IFF_UP))
    listeners = []
    for port in ports:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
        listeners.append(listener)
    return listeners


def init_main(spec: dict, to_warden: int, doors: socket.socket) -> None:
    """PID 1 of the sandbox's namespace: set the tree up, start the command, reap orphans, and end with the
    command (the kernel then kills whatever else is in the namespace). Never returns."""
    code = 1
    try:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # the warden gone: the namespace goes too
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)  # PID 1 ignores unhandled signals sent from inside
        proc_mounted = mount_private_tree(spec, proc=True)
        if spec["netns"]:  # the listeners go out to the warden; none stays in here
            ports = inside_ports(spec)
            listeners = private_network(ports)
            socket.send_fds(doors, [json.dumps(ports).encode()], [listener.fileno() for listener in listeners])
            for listener in listeners:
                listener.close()
        doors.close()
        pid, why, _ = start_command(spec, proc_mounted)  # in a PID namespace no call is held
        os.write(to_warden, (json.dumps({"forked": pid, "error": why}) + "\n").encode())
        while True:
            reaped, status = os.wait()
            if reaped == pid:  # and what it left running, which the kernel kills when we exit
                left = len([p for p in procfs.pids() if p != 1 and procfs.running(p)]) if proc_mounted else None
                os.write(to_warden, (json.dumps({"status": status, "left": left}) + "\n").encode())
                code = 0
                break
    except BaseException as error:  # noqa: BLE001
        os.write(to_warden, (json.dumps({"error": f"{type(error).__name__}: {error}"}) + "\n").encode())
    os._exit(code)

def inside_ports(spec: dict) -> list[int]:
    """The ports init listens on in the sandbox's network namespace: the gate's, then the caller's."""
    return ([spec["gate"]["port"]] if spec["gate"] else []) + list(spec["relay"])


def enter_namespaces(spec: dict) -> None:
    flags = linux.CLONE_NEWPID | linux.CLONE_NEWIPC | (linux.CLONE_NEWUSER if spec["userns"] else 0)
    uid, gid = os.getuid(), os.getgid()
    linux.unshare(flags)
    if spec["userns"]:  # the same uid inside: the sandbox's files stay its owner's; exec drops the capabilities
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as out:
                out.write(text)
