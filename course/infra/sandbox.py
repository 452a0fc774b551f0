"""An OS-level sandbox for code we do not trust (a student's notebook, in class grading): a process tree
that reads only what it is given, writes only its scratch folder, reaches PostgreSQL only as its own
role, cannot touch other processes, and dies whole at the end.

    from course.infra import sandbox

    isolation = sandbox.probe()              # what this machine offers; .line() says it in one line,
    if not isolation.enough: ...             # .enough is False when a guarantee below cannot be kept
    policy = sandbox.Policy(
        read=[*sandbox.python_paths(), "/course/checkout/course", notebook_copy],
        secrets=["/course/checkout/solutions", "/course/checkout/.course", submissions, out],
        postgres=role_conninfo,              # a role's connection string (user and password in it)
        tcp_connect=[provider_port], deadline_s=120, env={"COURSE_X": "1"})
    with sandbox.Sandbox(policy) as box:
        box.conninfo                         # the role's connection string as the sandbox must use it
        box.start([sys.executable, "-m", "course.x"], stdout=log, pass_fds=[channel])
        ending = box.wait()                  # Ending(why="exited"|"deadline"|"disk full"|..., exit=0, ...)
        assert not box.leftovers()           # processes of this sandbox still alive: none, or say which

What it guarantees, and how, depends on the machine (`probe()`; README's grading section has the table):

  files       Landlock (Linux 5.13+): read only `read` (with the system's /usr, /lib, /etc and a few
              devices), write only the scratch folder; `secrets` are checked to lie outside `read`.
  database    a gate in the warden admits only the role named in `postgres` (never the superuser, even
              with its password), over TCP; unix sockets cannot be made in the sandbox at all (seccomp).
  processes   as root: an unused uid, so no signal, ptrace or /proc of anyone else; as a user: a PID
              namespace (where user namespaces are allowed), Landlock's own ptrace rule, and its signal
              scope (Landlock ABI 6, Linux 6.12+).
  lifetime    a PID namespace (root, or a user with user namespaces): everything dies with the command;
              as root without one, kill(-1) as the sandbox's uid; otherwise the warden is a child
              subreaper and kills every descendant, round after round.
  limits      per process: memory (address space), processes (per uid; per user namespace when there is
              one), file size, open files; the scratch folder's size (a tmpfs where there is a mount
              namespace, else polled); a wall-clock deadline; an environment of only what you pass.

The caller's side: the sandbox is run by a warden process (course/infra/warden.py) started from here,
which keeps a pipe from us: when this process dies, the sandbox dies with it. The channel to the code
inside is yours: pass it file descriptors (a socketpair end in `pass_fds`, or stdin/stdout).

Tests can take isolation away, to try the fallbacks: COURSE_SANDBOX_WITHOUT=userns,pidns,mountns,
landlock,seccomp (any of them) and COURSE_SANDBOX_LANDLOCK_ABI=N (at most this kernel's).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pwd
import random
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from course.errors import CourseError
from course.infra import pgserver, procfs, warden
from course.infra.isolation import Isolation, probe  # noqa: F401 — part of this module's interface

SYSTEM_READ = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc"]
DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]
UID_BASE, UID_SPAN = 2_100_000_000, 1 << 20  # unused uids for sandboxes run by root: no account has them
MARKER = "COURSE_SANDBOX"  # in the command's environment: how leftovers are found without a namespace or uid
START_TIMEOUT_S = 60.0
GiB, MiB = 1 << 30, 1 << 20


class SandboxError(CourseError):
    """The sandbox could not be built or its command not started (the message says why)."""


# -- what a sandbox may do ----------------------------------------------------------------------------------


def python_paths() -> list[str]:
    """This Python's installation and its virtual environment (their site-packages included)."""
    found = []
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix):
        for path in (prefix, os.path.realpath(prefix)):
            if path not in found:
                found.append(path)
    return found


@dataclass
class Policy:
    """What a sandbox may do. Everything not named here is refused."""

    read: list[str | Path] = field(default_factory=list)  # files and folders to read (and run), beyond SYSTEM_READ
    secrets: list[str | Path] = field(default_factory=list)  # must stay unreadable: checked against `read`
    postgres: str | None = None  # a role's connection string: the only role it may log in as
    tcp_connect: list[int] = field(default_factory=list)  # ports on any address (Landlock knows ports only)
    tcp_bind: list[int] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # added to a minimal one (PATH, HOME, TMPDIR, LANG)
    memory_bytes: int = 2 * GiB  # address space, per process
    processes: int = 128  # processes and threads at once (per uid, or per user namespace)
    file_bytes: int = 64 * MiB  # the largest file it may write
    open_files: int = 1024
    scratch_bytes: int = 256 * MiB  # its scratch folder, in all
    deadline_s: float | None = None  # wall clock, from start() to the end of everything


@dataclass(frozen=True)
class Ending:
    """How a sandbox ended. `why`: exited, deadline, disk full (its scratch folder), stopped (stop()),
    caller gone, failed (could not start: `error`). `exit`: the command's exit code, -N if killed by
    signal N, None if unknown. `swept`: processes still running that the warden had to kill."""

    why: str
    exit: int | None
    seconds: float
    swept: int = 0
    error: str | None = None


@dataclass(frozen=True)
class Leftover:
    pid: int
    command: str
    found_by: str  # "PID namespace", "uid" or "marker"


# -- a sandbox -----------------------------------------------------------------------------------------------


class Sandbox:
    """One sandbox: start one command in it, wait for its end, check that nothing is left, clean up.

    The scratch folder (`scratch`, also HOME, TMPDIR and the working folder) is the sandbox's own: where
    a mount namespace exists it is a tmpfs only the sandbox sees, so pass results back through the
    channel you give it, not through files."""

    def __init__(self, policy: Policy, *, isolation: Isolation | None = None, folder: str | Path | None = None):
        self.policy = policy
        self.isolation = isolation or probe()
        self.folder = Path(tempfile.mkdtemp(prefix="course-sandbox-", dir=folder or "/tmp"))
        self.scratch = self.folder / "scratch"
        self.scratch.mkdir()
        self.uid = _unused_uid() if self.isolation.other_uid else None
        self.conninfo: str | None = None
        self._listener: socket.socket | None = None
        if policy.postgres:
            self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self._listener.bind(("127.0.0.1", 0))
            self._listener.listen(64)
            self.conninfo = _through_gate(policy.postgres, self._listener.getsockname()[1])
        self._process: subprocess.Popen | None = None
        self._status: int | None = None
        self._lifeline: int | None = None
        self._buffer = b""
        self._pidns: int | None = None
        self.started: dict | None = None
        self.ending: Ending | None = None
        if self.uid is not None:
            self.folder.chmod(0o711)
            os.chown(self.scratch, self.uid, self.uid)
        self.scratch.chmod(0o700)

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The command's pid (as this process sees it), once started."""
        return self.started and self.started.get("pid")

    # -- starting ---------------------------------------------------------------------------------------

    def start(self, argv: list[str], *, stdin=subprocess.DEVNULL, stdout=None, stderr=None,
              pass_fds: tuple[int, ...] | list[int] = ()) -> "Sandbox":
        """Start `argv` in the sandbox (looked up on the sandbox's PATH). stdin/stdout/stderr as
        subprocess.Popen takes them (None: this process's own); `pass_fds` stay open in the command.
        SandboxError when it could not start, with the reason."""
        if self._process is not None:
            raise SandboxError("this sandbox has started its command already: make a new Sandbox for another")
        spec = self._spec(list(map(str, argv)), list(pass_fds))
        status_read, status_write = os.pipe2(os.O_CLOEXEC)
        lifeline_read, lifeline_write = os.pipe2(os.O_CLOEXEC)
        spec.update(status_fd=status_write, lifeline_fd=lifeline_read)
        handed = [status_write, lifeline_read, *pass_fds] + ([self._listener.fileno()] if self._listener else [])
        try:
            self._process = subprocess.Popen(
                [*warden.command("main"), json.dumps(spec)], stdin=stdin, stdout=stdout,
                stderr=stderr, pass_fds=handed, env={"PATH": os.defpath}, cwd="/")
        finally:
            os.close(status_write)
            os.close(lifeline_read)
            if self._listener:
                self._listener.close()  # the warden has it now
        self._status, self._lifeline = status_read, lifeline_write
        first = self._next_event(START_TIMEOUT_S)
        if first is None or first["event"] != "started":
            error = first["error"] if first else f"the warden said nothing within {START_TIMEOUT_S:g} s"
            self.wait(10)
            raise SandboxError(f"the sandbox could not start {argv[0]}: {error}")
        self.started = first
        if first.get("init"):  # held open, the namespace's inode cannot go to another one: leftovers() stays exact
            try:
                self._pidns = os.open(f"/proc/{first['init']}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                pass  # init has ended already: so has everything in its namespace
        return self

    def _spec(self, argv: list[str], pass_fds: list[int]) -> dict:
        iso, policy, uid = self.isolation, self.policy, self.uid
        read = _resolved(policy.read)
        _check_secrets(read, _resolved(policy.secrets))
        scratch = str(self.scratch)
        read_all = [*SYSTEM_READ, *read]
        gate = None
        connect = list(policy.tcp_connect)
        if self._listener:
            port = self._listener.getsockname()[1]
            gate = {"fd": self._listener.fileno(), "port": port, "upstream": list(_upstream(policy.postgres)),
                    "roles": [conninfo_to_dict(policy.postgres).get("user") or ""]}
            connect.append(port)
        env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "HOME": scratch,
               "TMPDIR": scratch, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
               **policy.env, MARKER: self.folder.name}
        limits = {"RLIMIT_AS": policy.memory_bytes, "RLIMIT_NPROC": self._process_limit(),
                  "RLIMIT_FSIZE": policy.file_bytes, "RLIMIT_NOFILE": policy.open_files, "RLIMIT_CORE": 0}
        return {
            "argv": argv, "env": env, "cwd": scratch, "scratch": scratch, "scratch_bytes": policy.scratch_bytes,
            "uid": uid, "pidns": iso.pidns, "userns": iso.userns and iso.pidns, "mountns": iso.mountns,
            "tmpfs": iso.mountns, "read": read, "folder": str(self.folder), "limits": limits, "deadline_s": policy.deadline_s,
            "landlock": {"abi": iso.landlock_abi, "read": read_all, "write": [scratch], "devices": DEVICES,
                         "tcp_connect": connect, "tcp_bind": list(policy.tcp_bind)} if iso.landlock_abi else None,
            "seccomp": {"deny_truncate": iso.landlock_abi < 3, "deny_metadata": uid is None,
                        "guard_pids": iso.guards_pids} if iso.seccomp else None,
            "gate": gate, "netns": iso.netns, "relay": list(policy.tcp_connect), "pass_fds": pass_fds,
        }

    def _process_limit(self) -> int:
        """RLIMIT_NPROC counts every process of the uid (in its user namespace, if any): with an uid of its
        own, or a namespace, it is the sandbox's alone; sharing yours, what already runs is added."""
        if self.uid is not None or self.isolation.userns:
            return self.policy.processes
        return procfs.tasks_of_uid(os.getuid()) + self.policy.processes

    # -- waiting and ending -----------------------------------------------------------------------------

    def _next_event(self, timeout: float | None) -> dict | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self._status], [], [], left)[0]:
                return None
            chunk = os.read(self._status, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def wait(self, timeout: float | None = None) -> Ending | None:
        """Wait until the sandbox has ended and its processes are gone; its Ending (None on timeout)."""
        if self.ending or self._process is None:
            return self.ending
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            event = self._next_event(left)
            if event is None:
                if self._process.poll() is None and (deadline is None or time.monotonic() < deadline):
                    continue
                if self._process.poll() is None:
                    return None
                code = self._process.wait()
                self.ending = Ending("failed", None, 0.0, error=f"the warden ended ({code}) without a report")
                break
            if event["event"] == "ended":
                self.ending = Ending(event["why"], event["exit"], event["seconds"], event["swept"])
                self._process.wait()
                break
            if event["event"] == "failed":
                self._error = event["error"]
        if getattr(self, "_error", None):
            self.ending = dataclasses.replace(self.ending, error=self._error)
        os.close(self._status)
        return self.ending

    def stop(self, timeout: float = 30.0) -> Ending | None:
        """End the sandbox now (everything in it is killed) and wait for it."""
        if self._process is None or self.ending:
            return self.ending
        try:
            os.write(self._lifeline, b"stop")
        except OSError:
            pass  # the warden has ended already
        ending = self.wait(timeout)
        if ending is None:  # the warden itself does not answer: kill it (its namespace dies with it)
            self._process.kill()
            ending = self.wait(timeout)
        return ending

    def _cut_lifeline(self) -> None:
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None

    def leftovers(self) -> list[Leftover]:
        """Processes of this sandbox still alive, found by its PID namespace, its uid, or (sharing your
        uid without a namespace) the marker in their environment, which a process can remove: there it
        is a best effort, and the warden's own sweep (it is their subreaper) is what kills them."""
        pidns = os.fstat(self._pidns).st_ino if self._pidns is not None else None
        marker = f"{MARKER}={self.folder.name}".encode()
        found = []
        for pid in procfs.pids():
            if pid in (os.getpid(), self._process and self._process.pid):
                continue
            if pidns and procfs.pidns_of(pid) == pidns:
                why = "PID namespace"
            elif self.uid is not None and procfs.uid_of(pid) == self.uid:
                why = "uid"
            elif procfs.has_environment_entry(pid, marker):
                why = "marker"
            else:
                continue
            found.append(Leftover(pid, procfs.command_line(pid), why))
        return found

    def close(self) -> None:
        """Stop the sandbox if it runs, and remove its folder."""
        if self._process is not None and not self.ending:
            self.stop()
        self._cut_lifeline()
        if self._pidns is not None:
            os.close(self._pidns)
            self._pidns = None
        if self._listener and self._listener.fileno() != -1:
            self._listener.close()
        shutil.rmtree(self.folder, ignore_errors=True)


# -- helpers -------------------------------------------------------------------------------------------------


def _resolved(paths) -> list[str]:
    found = []
    for path in paths:
        for form in (os.path.abspath(path), os.path.realpath(path)):
            if form not in found:
                found.append(form)
    return found


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _check_secrets(read: list[str], secrets: list[str]) -> None:
    """Refuse a policy whose `read` would expose a secret: a read path inside a secret, or holding one."""
    for secret in secrets:
        for path in [*read, *SYSTEM_READ]:
            if _inside(path, secret) or _inside(secret, path):
                raise SandboxError(f"the sandbox may not read {path}: the secret {secret} "
                                   + ("is inside it" if _inside(secret, path) else "holds it")
                                   + " (name narrower paths in Policy.read)")


def _upstream(conninfo: str) -> tuple[str, int]:
    """Where a connection string points: (socket folder or host, port); the first host if several."""
    params = conninfo_to_dict(conninfo)
    host = (params.get("host") or params.get("hostaddr") or "/tmp").split(",")[0]
    return host, int(str(params.get("port") or pgserver.PORT).split(",")[0])


def _through_gate(login: str, port: int) -> str:
    """`login` rewritten to go through the gate on `port`: no password file (its password, if any, stays)."""
    params = conninfo_to_dict(login)
    for key in ("hostaddr", "passfile", "service", "servicefile"):
        params.pop(key, None)
    return make_conninfo(**{**params, "host": "127.0.0.1", "port": str(port), "sslmode": "disable",
                            "gssencmode": "disable"})


def _unused_uid() -> int:
    """An uid no account has and no process runs as: the sandbox's own, for its life."""
    for _ in range(1000):
        uid = UID_BASE + random.randrange(UID_SPAN)
        try:
            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        if not procfs.processes_of_uid(uid):
            return uid
    raise SandboxError("found no unused uid for the sandbox in 1000 tries")
