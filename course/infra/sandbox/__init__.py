"""An OS-level sandbox for code we do not trust (a student's notebook, in class grading): a process tree
that reads only what it is given, writes only its scratch folder, reaches PostgreSQL only as its own
role, cannot touch other processes, and dies whole at the end.

    from course.infra import sandbox

    isolation = sandbox.probe()              # what this machine offers: .line() says it in one line;
    if not isolation.enough: ...             # False when a guarantee cannot be kept (.missing() says which)
    policy = sandbox.Policy(
        read=[*sandbox.python_paths(), "/checkout/course", notebook_copy],
        secrets=["/checkout/solutions", "/checkout/.course", submissions, out],
        postgres=role_conninfo,              # a role's connection string, its password in it
        tcp_connect=[provider_port], deadline_s=120, env={"PROVIDER_URL": f"http://127.0.0.1:{provider_port}"})
    with sandbox.Sandbox(policy) as box:
        box.conninfo                         # that role's connection string as the sandbox must use it
        box.start([sys.executable, "-m", "course.x"], stdout=log, stderr=log, pass_fds=[channel])
        ending = box.wait()                  # Ending(why="exited", exit=0, seconds=..., swept=0)
        left = box.leftovers()               # its processes still alive (none: report any), before close()

The guarantees, and how each is kept here, are `probe().guarantees()`:

  files       Landlock: read only `read` (and the system's /usr, /lib, /etc, a few devices), write only
              the scratch folder and `write` (folders you share with it: a sandbox's uid must be able to
              write them); start() refuses a `read` or `write` holding or inside one of `secrets`. Sharing
              your uid, it may not change any file's mode, owner or times either (seccomp).
  database    the warden's gate admits only the role in `postgres`: never the superuser, even with its
              password. It cannot make unix sockets (seccomp): no server socket, session bus or agent.
  network     a network namespace of its own where there is a PID one (only loopback; 127.0.0.1:PORT of
              each `tcp_connect` port is relayed to 127.0.0.1:PORT outside; it may serve on any port
              inside); else Landlock (ABI 4+): TCP connect only to `tcp_connect`, bind only `tcp_bind`.
              `own_network=False` keeps the machine's loopback and Landlock's rules only, for code that
              serves its caller on a `tcp_bind` port (below ABI 4 its TCP is then free). `open_tcp` lifts
              both: its TCP is free (PostgreSQL stays behind the gate: it listens on a socket).
  processes   as root: an unused uid of its own; as a user: a PID namespace (where user namespaces are
              allowed), else Landlock and the warden judging each signal, renice or prlimit it makes.
  lifetime    everything it started dies when the command ends, is stopped, passes its deadline or
              fills its scratch folder, or when the caller dies: with its PID namespace; as root without
              one, by kill(-1) as its uid; otherwise swept by the warden, their subreaper.
  limits      per process: address space, file size, open files; processes and threads at once (its
              uid's, or its user namespace's); the scratch folder's bytes and files (a tmpfs, else polled
              every 0.1 s); the deadline; an environment of only PATH, HOME, TMPDIR, LANG and `env`.

The scratch folder (`box.scratch`: HOME, TMPDIR, the working folder) is the sandbox's own: where there is
a mount namespace it is a tmpfs only the sandbox sees. The channel to the code inside is yours: file
descriptors you pass (a socketpair end in `pass_fds`, stdin/stdout), never a file or a socket it could
find. One thread uses one Sandbox; many Sandboxes may run at once. (Tests take isolation away to try
the fallbacks: course.infra.sandbox.isolation.)

Why one module: it is the sandbox as its caller sees it, one object's life: the policy checked and
turned into the warden's spec, the start, the warden's reports read back, the end and what is left;
what runs elsewhere (the warden and its children) is in the modules beside it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from course.errors import CourseError
from course.infra.sandbox import procfs, spare_uids, warden
from course.infra.sandbox.isolation import Isolation, probe  # noqa: F401 — part of this module's interface

SYSTEM_READ = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc"]
DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]
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


CPU_GRACE_S = 5  # RLIMIT_CPU's soft limit sends SIGXCPU (a clear "CPU time limit"); its hard one, SIGKILL


@dataclass
class Policy:
    """What a sandbox may do. Everything not named here is refused."""

    read: list[str | Path] = field(default_factory=list)  # files and folders to read (and run), beyond SYSTEM_READ
    secrets: list[str | Path] = field(default_factory=list)  # must stay unreadable: checked against `read`
    write: list[str | Path] = field(default_factory=list)  # folders it may also write (and read), beyond scratch
    listable: list[str | Path] = field(default_factory=list)  # folders it may list (only: a package whose
    #                           parts are in `read` but for one, so Python can import from it)
    postgres: str | None = None  # a role's connection string: the only role it may log in as
    tcp_connect: list[int] = field(default_factory=list)  # ports on any address (Landlock knows ports only)
    tcp_bind: list[int] = field(default_factory=list)
    open_tcp: bool = False  # TCP to and from any port (no network namespace or rules): see the docstring
    own_network: bool = True  # False: the machine's loopback, Landlock's port rules only (what it serves
    #                           on a `tcp_bind` port is reachable from outside; TCP open below ABI 4)
    env: dict[str, str] = field(default_factory=dict)  # added to a minimal one (PATH, HOME, TMPDIR, LANG)
    memory_bytes: int = 2 * GiB  # address space, per process
    cpu_seconds: int = 600  # CPU time, per process: SIGXCPU then, SIGKILL 5 s of CPU later
    processes: int = 128  # processes and threads at once (per uid, or per user namespace)
    file_bytes: int = 64 * MiB  # the largest file it may write
    open_files: int = 1024
    scratch_bytes: int = 256 * MiB  # its scratch folder, in all
    scratch_files: int = 50_000  # files and folders in it
    deadline_s: float | None = None  # wall clock, from start() to the end of everything


@dataclass(frozen=True)
class Ending:
    """How a sandbox ended. `why`: exited, deadline, disk full (its scratch folder), stopped (stop()),
    caller gone, failed (could not start: `error`). `exit`: the command's exit code, -N if killed by
    signal N, None if unknown. `swept`: how many of its processes were still running at the end, and
    killed then (a daemon it left behind counts: the grader may say so)."""

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

    def __init__(self, policy: Policy, *, isolation: Isolation | None = None, folder: str | Path | None = None,
                 prefix: str = "course-sandbox-"):
        self.policy = policy
        self.isolation = isolation or probe()
        # `prefix`: a caller that may be killed before close() names its folders, to find and remove them after
        self.folder = Path(tempfile.mkdtemp(prefix=prefix, dir=folder or "/tmp"))
        self.scratch = self.folder / "scratch"
        self.scratch.mkdir()
        self.uid, self._uid_lock = spare_uids.reserve() if self.isolation.other_uid else (None, None)
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
        self._error: str | None = None
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
        try:
            first = self._next_event(START_TIMEOUT_S)
        except EOFError:
            first = {"event": "failed", "error": "the warden ended without a word"}
        if first is None or first["event"] != "started":
            error = first["error"] if first else f"the warden said nothing within {START_TIMEOUT_S:g} s"
            self._error = error
            self.stop(10)
            raise SandboxError(f"the sandbox could not start {argv[0]}: {error}")
        self.started = first
        if first.get("init"):  # held open, the namespace's inode cannot go to another one: leftovers() stays exact
            try:
                self._pidns = os.open(f"/proc/{first['init']}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                pass  # init has ended already: so has everything in its namespace
            if self._pidns is not None and os.fstat(self._pidns).st_ino != first["pidns"]:
                os.close(self._pidns)  # init ended and its pid went to another process
                self._pidns = None
        return self

    def _spec(self, argv: list[str], pass_fds: list[int]) -> dict:
        iso, policy, uid = self.isolation, self.policy, self.uid
        write = _resolved(policy.write)
        read = _resolved(policy.read) + [path for path in write if path not in _resolved(policy.read)]
        _check_secrets(read, _resolved(policy.secrets))
        scratch = str(self.scratch)
        read_all = [*SYSTEM_READ, *read]
        gate = None
        netns = iso.netns and not policy.open_tcp and policy.own_network
        connect = list(policy.tcp_connect)
        if self._listener:
            port = self._listener.getsockname()[1]
            gate = {"fd": self._listener.fileno(), "port": port, "upstream": list(_upstream(policy.postgres)),
                    "roles": [_conninfo_dict(policy.postgres).get("user") or ""],
                    "databases": [_conninfo_dict(policy.postgres).get("dbname")
                                  or _conninfo_dict(policy.postgres).get("user") or ""]}
            connect.append(port)
        env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "HOME": scratch,
               "TMPDIR": scratch, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
               **policy.env, MARKER: self.folder.name}
        limits = {"RLIMIT_AS": policy.memory_bytes, "RLIMIT_NPROC": self._process_limit(),
                  "RLIMIT_FSIZE": policy.file_bytes, "RLIMIT_NOFILE": policy.open_files, "RLIMIT_CORE": 0,
                  "RLIMIT_CPU": [policy.cpu_seconds, policy.cpu_seconds + CPU_GRACE_S]}
        return {
            "argv": argv, "env": env, "cwd": scratch, "scratch": scratch, "scratch_bytes": policy.scratch_bytes,
            "scratch_files": policy.scratch_files,
            "uid": uid, "uid_lock": uid and str(spare_uids.lock_file(uid)), "pidns": iso.pidns, "userns": iso.userns and iso.pidns, "mountns": iso.mountns,
            "tmpfs": iso.mountns, "shm": iso.mountns, "read": read, "folder": str(self.folder), "limits": limits, "deadline_s": policy.deadline_s,
            "landlock": {"abi": iso.landlock_abi, "read": read_all, "devices": DEVICES,
                         "list": _resolved(policy.listable),
                         "write": [scratch, *write, *(["/dev/shm"] if iso.mountns else [])],
                         "tcp_connect": connect, "tcp_bind": list(policy.tcp_bind),
                         "network": not (netns or policy.open_tcp)} if iso.landlock_abi else None,
            "seccomp": {"deny_truncate": iso.landlock_abi < 3, "deny_metadata": uid is None,
                        "guard_pids": iso.guards_pids} if iso.seccomp else None,
            "gate": gate, "netns": netns, "relay": list(policy.tcp_connect),
            "pass_fds": pass_fds,
        }

    def _process_limit(self) -> int:
        """RLIMIT_NPROC counts every process of the uid (in its user namespace, if any): with an uid of its
        own, or a namespace, it is the sandbox's alone; sharing yours, what already runs is added."""
        if self.uid is not None or self.isolation.userns:
            return self.policy.processes
        return procfs.tasks_of_uid(os.getuid()) + self.policy.processes

    # -- waiting and ending -----------------------------------------------------------------------------

    def _next_event(self, timeout: float | None) -> dict | None:
        """The warden's next report; None when `timeout` passes first, EOFError when it has no more."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self._status], [], [], left)[0]:
                return None
            chunk = os.read(self._status, 65536)
            if not chunk:
                raise EOFError
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
            try:
                event = self._next_event(left)
            except EOFError:  # the warden has closed its end: it is ending, or was killed
                code = self._process.wait()
                self.ending = Ending("failed", None, 0.0, error=f"the warden ended ({code}) without a report")
                break
            if event is None:
                return None
            if event["event"] == "ended":
                self.ending = Ending(event["why"], event["exit"], event["seconds"], event["swept"])
                self._process.wait()
                break
            if event["event"] == "failed":
                self._error = event["error"]
        if self._error:
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
        try:
            if self._process is not None and not self.ending:
                self.stop()
        finally:
            for fd in (self._lifeline, self._pidns):
                if fd is not None:
                    os.close(fd)
            self._lifeline = self._pidns = None
            if self._listener and self._listener.fileno() != -1:
                self._listener.close()
            shutil.rmtree(self.folder, ignore_errors=True)
            if self._uid_lock is not None:  # after its end: no process of that uid is left (leftovers() says)
                spare_uids.release(self.uid, self._uid_lock)
                self._uid_lock = None


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


def _conninfo_dict(conninfo: str) -> dict:
    """A connection string's parameters. psycopg is imported here, not at the top: the warden imports this
    package under `python -I -S`, without site-packages."""
    from psycopg.conninfo import conninfo_to_dict

    return conninfo_to_dict(conninfo)


def _upstream(conninfo: str) -> tuple[str, int]:
    """Where a connection string points: (socket folder or host, port); the first host if several."""
    from course.infra import pgserver  # here, not above: the warden imports this package without psycopg

    params = _conninfo_dict(conninfo)
    host = (params.get("host") or params.get("hostaddr") or "/tmp").split(",")[0]
    return host, int(str(params.get("port") or pgserver.PORT).split(",")[0])


def _through_gate(login: str, port: int) -> str:
    """`login` rewritten to go through the gate on `port`: no password file (its password, if any, stays)."""
    from psycopg.conninfo import make_conninfo

    params = _conninfo_dict(login)
    for key in ("hostaddr", "passfile", "service", "servicefile"):
        params.pop(key, None)
    return make_conninfo(**{**params, "host": "127.0.0.1", "port": str(port), "sslmode": "disable",
                            "gssencmode": "disable"})
