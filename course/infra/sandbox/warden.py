"""The warden: the trusted process at the root of a sandbox (course.infra.sandbox starts one per sandbox).

It builds the sandbox, starts the command in it, keeps the door to PostgreSQL, and at the end kills
everything the command started and says what happened. It is started as
`python -I -S -c BOOT SPEC`: no site-packages, nothing from the environment, only the standard library
and this package's linux, landlock, seccomp, pidguard, procfs, gates and inside (what runs in the
processes it forks, before the command does): nothing the sandbox could have written runs in it.

What it does, in order (the spec, JSON written by course.infra.sandbox, says which steps this machine allows):

    namespaces   a new PID namespace (and IPC), in a new user namespace when not root; its first process
                 ("init") gets a mount namespace of its own where it mounts a fresh /proc, a size-limited
                 tmpfs on the scratch folder, and "reveals" the read-only paths a private folder would
                 hide from the sandbox's uid (a tmpfs over /root holding only the Python installation);
                 and a network namespace of its own, only loopback in it: init listens there on the
                 PostgreSQL gate's port and the ports the caller named, and hands the listeners out to
                 the warden, which relays them (course.infra.sandbox.gates)
    the command  its own session (no terminal to type into), resource limits, the sandbox's uid (root:
                 an unused one), no new privileges, Landlock, the seccomp filter, a scrubbed environment,
                 then exec
    watching     the command's end, a deadline, the scratch folder's size where no tmpfs limits it, the
                 caller's lifeline (a pipe: a word on it stops the sandbox; its end, when the caller
                 dies, does too), SIGTERM
    the end      without a PID namespace, a sweep: as root, kill(-1) as the sandbox's uid (the kernel
                 sends it to every process of that uid at once); otherwise SIGKILL to every descendant,
                 round after round (the warden is a child subreaper: orphans come back to it)

It reports to the caller on a status pipe, one JSON object a line: {"event": "started", ...},
{"event": "failed", "error": ...} when the command could not be started, {"event": "ended", ...}.

The first two steps run in the processes it forks, and are in course.infra.sandbox.inside; the watching
and the end are here: one process's life, from the spec to the last report.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import time

from course.infra.sandbox import inside, linux, pidguard, procfs
from course.infra.sandbox.gates import Relay, RoleGate

EXEC_FAILED = inside.EXEC_FAILED
QUOTA_POLL_S = 0.1


# -- the warden ----------------------------------------------------------------------------------------


def sweep_descendants() -> int:
    """SIGKILL every descendant, round after round until none is left; how many were killed."""
    killed: set[int] = set()
    for _ in range(10_000):
        _reap_all()
        found = procfs.descendants(os.getpid())
        if not found:
            break
        for pid in found:
            if procfs.running(pid):  # (a zombie has ended already: it waits only to be reaped)
                killed.add(pid)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.001)
    return len(killed)


def sweep_uid(uid: int) -> int:
    """As root: kill every process of `uid`, the way the kernel does kill(-1): all at once, so none can
    fork a new one in between. Repeated until /proc shows none. How many rounds it took."""
    for rounds in range(1, 101):
        if not procfs.processes_of_uid(uid):
            return rounds - 1
        pid = os.fork()
        if pid == 0:
            try:
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        time.sleep(0.01)
    return rounds


def _reap_all() -> dict[int, int]:
    """Reap every child that has ended; {pid: wait status}."""
    reaped = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        reaped[pid] = status
    return reaped


def scratch_over(path: str, max_bytes: int, max_files: int) -> bool:
    """Do the files under `path` take more than `max_bytes` on disk (allocated blocks: a sparse file counts
    as written), or number more than `max_files`? Stops counting as soon as one is over."""
    total = count = 0
    for folder, folders, files in os.walk(path):
        count += len(folders) + len(files)
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
            except OSError:
                pass
        if total > max_bytes or count > max_files:
            return True
    return False


def exit_code(status: int) -> int:
    """A wait status as subprocess says it: the exit code, or -N when killed by signal N."""
    return os.waitstatus_to_exitcode(status)


class Warden:
    def __init__(self, spec: dict):
        self.spec = spec
        self.status_fd = spec["status_fd"]
        self.started = time.monotonic()
        self.leader: int | None = None  # init (with a PID namespace) or the command itself
        self.command: int | None = None  # the command's pid as this warden sees it
        self.exit: int | None = None
        self.why: str | None = None
        self.done: asyncio.Future | None = None
        self.leader_reaped = False
        self.pidns: int | None = None  # the inode of the sandbox's PID namespace
        self.left: int | None = None  # processes still running when the command ended, as init counted them
        self.from_init: int | None = None  # the pipe init reports on, and what of it is not yet a line
        self.buffered = b""
        self.pidfd: int | None = None
        self.listener: int | None = None  # where the command's held calls arrive (course.infra.sandbox.pidguard)
        self.doors: list[tuple[int, int]] = []  # (port, listener) made in the sandbox's network namespace

    def report(self, **event) -> None:
        try:
            os.write(self.status_fd, (json.dumps(event) + "\n").encode())
        except OSError:
            pass  # the caller is gone: the lifeline will end us

    def finish(self, why: str) -> None:
        if not self.done.done():
            self.why = why
            self.done.set_result(why)

    # -- starting --------------------------------------------------------------------------------------

    def start(self) -> int | None:
        """Start init or the command; the pipe init reports on (None without a PID namespace)."""
        spec = self.spec
        if spec["pidns"]:
            inside.enter_namespaces(spec)
            from_init, to_warden = os.pipe2(os.O_CLOEXEC)
            ours, theirs = socket.socketpair()
            self.leader = os.fork()
            if self.leader == 0:
                os.close(from_init)
                ours.close()
                inside.init_main(spec, to_warden, theirs)
            self.pidns = procfs.pidns_of(self.leader)  # now: init may be gone by the time it reports
            os.close(to_warden)
            theirs.close()
            if spec["netns"]:  # init sends its listeners before it starts the command; EOF if it failed first
                said, fds, _, _ = socket.recv_fds(ours, 4096, 64)
                self.doors = list(zip(json.loads(said or b"[]"), fds))
            ours.close()
            return from_init
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)  # orphans come back to us, not to the machine's init
        self.leader, why, self.listener = inside.start_command(spec)
        if why:
            self.report(event="failed", error=why)
            self.exit, self.why = EXEC_FAILED, "failed"
        else:
            self.command = self.leader
            self.report(event="started", pid=self.leader, pidns=None)
        return None

    def on_init_line(self, line: bytes) -> None:
        said = json.loads(line)
        if "forked" in said:
            if said["error"]:
                self.report(event="failed", error=said["error"])
                self.exit = EXEC_FAILED
                self.finish("failed")
                return
            self.command = procfs.inner_child(self.leader, said["forked"])  # None if it has ended already
            self.report(event="started", pid=self.command, init=self.leader, pidns=self.pidns)
        elif "status" in said:
            self.exit, self.left = exit_code(said["status"]), said["left"]
        elif "error" in said:
            self.report(event="failed", error=said["error"])
            self.exit = EXEC_FAILED
            self.finish("failed")

    # -- watching --------------------------------------------------------------------------------------

    async def watch(self, from_init: int | None) -> None:
        loop = asyncio.get_running_loop()
        self.done = loop.create_future()
        if self.why == "failed":
            self.done.set_result("failed")
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(signum, self.finish, "stopped")
        lifeline = self.spec["lifeline_fd"]
        loop.add_reader(lifeline, lambda: self.finish("stopped" if os.read(lifeline, 64) else "caller gone"))
        if self.spec["pidns"]:
            self.from_init = from_init
            self.pidfd = os.pidfd_open(self.leader)
            loop.add_reader(self.pidfd, self._init_ended)
            loop.add_reader(from_init, self._read_init)
        else:
            if self.listener is not None:
                loop.add_reader(self.listener, pidguard.PidGuard(os.getpid()).answer_next, self.listener)
            loop.add_signal_handler(signal.SIGCHLD, self._reap)
            self._reap()  # it may have ended before the handler was in place
        if self.spec["deadline_s"] is not None:
            loop.call_at(loop.time() + self.spec["deadline_s"] - (time.monotonic() - self.started),
                         self.finish, "deadline")
        keepers, servers = await self._open_doors()
        poll = None
        if not self.spec["tmpfs"]:
            poll = asyncio.ensure_future(self._watch_scratch())
        await self.done
        if poll:
            poll.cancel()
        for server in servers:
            server.close()
        for keeper in keepers:
            keeper.abort_all()

    async def _open_doors(self) -> tuple[list, list]:
        """Serve the PostgreSQL gate, and relay the caller's ports: on the listeners init made in the
        sandbox's network namespace, or (without one) the gate on the caller's listener."""
        spec = self.spec
        gate = spec["gate"] and RoleGate(tuple(spec["gate"]["upstream"]), set(spec["gate"]["roles"]),
                                    set(spec["gate"]["databases"]) if "databases" in spec["gate"] else None)
        keepers, servers = [], []
        if spec["netns"]:
            if gate:
                socket.socket(fileno=spec["gate"]["fd"]).close()  # the caller's: unused, the sandbox cannot reach it
            for port, fd in self.doors:
                keeper = gate if gate and port == spec["gate"]["port"] else Relay(("127.0.0.1", port))
                keepers.append(keeper)
                servers.append(await asyncio.start_server(keeper.serve, sock=socket.socket(fileno=fd)))
        elif gate:
            keepers.append(gate)
            servers.append(await asyncio.start_server(gate.serve, sock=socket.socket(fileno=spec["gate"]["fd"])))
        return keepers, servers

    def _read_init(self) -> bool:
        """Take in what init wrote; False at its end (init has exited, or closed the pipe)."""
        chunk = os.read(self.from_init, 4096)
        self.buffered += chunk
        while b"\n" in self.buffered:
            line, _, self.buffered = self.buffered.partition(b"\n")
            self.on_init_line(line)
        if not chunk:
            asyncio.get_running_loop().remove_reader(self.from_init)
        return bool(chunk)

    def _init_ended(self) -> None:
        loop = asyncio.get_running_loop()
        loop.remove_reader(self.pidfd)
        _, status = os.waitpid(self.leader, 0)
        self.leader_reaped = True
        while self._read_init():  # its last words (the command's exit status) are in the pipe by now
            pass
        if self.exit is None and os.WIFSIGNALED(status):
            self.exit = exit_code(status)  # init itself was killed: by the kernel, or by a signal from us
        self.finish("exited")

    def _reap(self) -> None:
        for pid, status in _reap_all().items():
            if pid == self.leader:
                self.exit = exit_code(status)
                self.finish("exited")

    async def _watch_scratch(self) -> None:
        while True:
            await asyncio.sleep(QUOTA_POLL_S)
            if scratch_over(self.spec["scratch"], self.spec["scratch_bytes"], self.spec["scratch_files"]):
                self.finish("disk full")

    # -- ending ----------------------------------------------------------------------------------------

    def end(self) -> None:
        """Kill whatever is left of the sandbox, and say how it ended."""
        swept = self.left or 0
        if self.spec["pidns"]:
            if not self.leader_reaped:
                swept = len([pid for pid in procfs.pids() if pid != self.leader and procfs.running(pid)
                             and procfs.pidns_of(pid) == self.pidns])
                try:
                    os.kill(self.leader, signal.SIGKILL)  # init's death takes the whole namespace with it
                except ProcessLookupError:
                    pass
                os.waitpid(self.leader, 0)
        else:
            swept = sweep_descendants()
        if self.spec["uid"] is not None:
            swept += len(procfs.processes_of_uid(self.spec["uid"]))
            sweep_uid(self.spec["uid"])
        self.report(event="ended", why=self.why, exit=self.exit, swept=swept,
                    seconds=round(time.monotonic() - self.started, 3))
        if self.why == "caller gone":  # nobody is left to remove the sandbox's folder, or its uid's lock file
            shutil.rmtree(self.spec["folder"], ignore_errors=True)
            if self.spec["uid_lock"]:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.spec["uid_lock"])


def probe_namespaces(argv: list[str]) -> int:
    """`probe_namespaces '{"user": bool, "pid": bool, "net": bool}'`: exit 0 when the namespaces and mounts
    the warden makes are allowed here; else 1, with what the kernel said on stderr. (Its tmpfs goes on
    /tmp, in a mount namespace that ends with it: nothing to clean up.)"""
    asked = json.loads(argv[1])
    try:
        if asked["pid"]:
            inside.enter_namespaces({"userns": asked["user"]})
        pid = os.fork()
        if pid == 0:
            try:
                inside.mount_private_tree({"tmpfs": True, "uid": None, "scratch": tempfile.gettempdir(),
                                     "scratch_bytes": 4096, "scratch_files": 16}, proc=False)
                if asked["pid"]:
                    linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
                if asked["net"]:
                    inside.private_network([5432])
                os._exit(0)
            except OSError as error:
                print(f"{error}", file=sys.stderr)
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        return 0 if os.waitstatus_to_exitcode(status) == 0 else 1
    except OSError as error:
        print(f"{error}", file=sys.stderr)
        return 1


def command(function: str) -> list[str]:
    """How to start the warden (`function` is main or probe_namespaces): this Python, isolated (-I: no
    environment, no user site; -S: no site-packages), with this checkout's course package after the
    standard library."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    boot = (f"import sys; sys.path.append({root!r}); from course.infra.sandbox import warden; "
            f"sys.exit(warden.{function}(sys.argv))")
    return [sys.executable, "-I", "-S", "-c", boot]


def main(argv: list[str]) -> int:
    spec = json.loads(argv[1])
    for fd in (spec["status_fd"], spec["lifeline_fd"], *([spec["gate"]["fd"]] if spec["gate"] else [])):
        os.set_inheritable(fd, False)  # the command never gets these (start_command closes them too)
    warden = Warden(spec)
    try:
        from_init = warden.start()
    except OSError as error:
        warden.report(event="failed", error=f"the sandbox could not be built: {error}")
        return 1
    try:
        asyncio.run(warden.watch(from_init))
    finally:
        warden.end()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
