"""Where one notebook's code runs when a class is graded: the one seam between the grader and the sandbox.

    confinement = Confinement(scratch, conninfo=role_conninfo, sandboxed=True, secrets=[...])
    host = confinement.start_host(log)        # the answer host (boundary/host.py), confined
    processes.confine_untrusted(confinement.launch_spec)   # workers the checks start with its code, too
    ...
    confinement.end()                          # everything it started is killed; what was left, said

Every process that runs the notebook's code starts here, with the environment of `environment()`
(its own database role, its scratch folder as home; nothing of the grader's), marked so it can be found
and killed. Sandboxed (class grading where `isolation()` says the machine can), each such process is
a course.infra.sandbox of its own: it reads only Python, the course package and the exchange folder
(no notebook but the one it was sent, no solutions/, no .course/, no gradebook, not course/grading/checks),
writes only its scratch folder and the exchange folder, reaches PostgreSQL only as the notebook's role through the
sandbox's gate; all it started dies with it. Its TCP reaches only the notebook's own block of ports
(course.infra.ports, Landlock ABI 4+): the servers its checks start take their ports from that block, and
a server it starts with the learner's code binds one of them, where the check reaches it (so no network
namespace: Policy.own_network=False). Not another notebook's servers, nor the course's broker. Not sandboxed (`course check`, `course compare`, or `grade --trust-submissions`),
it is a plain child in a session of its own: README's grading section says what that does not refuse.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from course.grading.boundary.launch import launch_host
from course.infra import pgserver, ports

MARKER = "COURSE_CONFINED"
PACKAGE = Path(__file__).resolve().parents[1]  # the course package: what a sandbox may read of the checkout


def isolation() -> tuple[bool, str]:
    """Can the notebooks' code be confined here (enough to grade a class you do not trust), and how, in
    one line for the instructor."""
    from course.infra import sandbox

    found = sandbox.probe()
    tcp = ("; the notebooks' TCP reaches only their own ports" if found.landlock_abi >= 4 else
           "; the notebooks' TCP is left open (Landlock below ABI 4: README)")
    return found.enough, found.line() + (tcp if found.enough else "")


class Confinement:
    def __init__(self, scratch: Path, *, conninfo: str | None, env: dict[str, str] | None = None,
                 token: str | None = None, sandboxed: bool = False, secret_paths: list[str] = ()):
        self.scratch = Path(scratch).resolve()
        self.scratch.mkdir(parents=True, exist_ok=True)
        (self.scratch / "tmp").mkdir(exist_ok=True)
        self.sandboxed = sandboxed
        self.secrets = [str(Path(p).resolve()) for p in secret_paths]  # what its sandboxes must never read
        self._boxes: list = []
        self.token = token or secrets.token_hex(8)  # the grader's, so it can sweep after a checker it killed
        if sandboxed:  # shared by its sandboxes, each of its own uid as root: the sticky bit keeps theirs theirs
            self.exchange = Path(tempfile.mkdtemp(prefix=f"{EXCHANGE}{self.token}-", dir="/tmp"))  # not under TMPDIR: the run's folder
            self.exchange.chmod(0o1777)
        else:
            self.exchange = self.scratch / "exchange"  # what its workers write and the checks read back
            self.exchange.mkdir(exist_ok=True)
        self.ports: list[int] = []
        if sandboxed:  # the servers this process's checks start take these: its sandboxes reach only them
            self.ports = ports.reserve_block()
            os.environ[ports.ENV] = ports.named(self.ports)
            os.environ["COURSE_EXCHANGE_DIR"] = str(self.exchange)  # the checks' side shares files with its sandboxes there
        self.conninfo = conninfo
        self.extra_env = dict(env or {})
        self._started: list[subprocess.Popen] = []
        self._grader_env = dict(os.environ)  # what a child's environment adds to this is the check's to give

    def environment(self, home: Path | None = None) -> dict[str, str]:
        """All the environment the notebook's processes get: no password file, no grader's folders."""
        home = home or self.scratch
        env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home),
               "TMPDIR": str(home / "tmp") if home == self.scratch else str(home), "LANG": "C.UTF-8",
               "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "MPLBACKEND": "Agg",
               "COURSE_PROGRESS_FILE": str(home / "progress.json"),
               "COURSE_EXCHANGE_DIR": str(self.exchange), "COURSE_LOG_DIR": str(home / "logs"),
               MARKER: self.token, **self.extra_env}
        if self.ports:
            env[ports.ENV] = ports.named(self.ports)
        if self.conninfo:
            env["DATABASE_URL"] = self.conninfo
        return env

    def _added(self, env: dict | None) -> dict[str, str]:
        """What `env` adds to the checker's environment as it started (a check's EMAIL_PROVIDER_URL, say)."""
        mine = self.environment()
        return {name: value for name, value in (env or {}).items()
                if self._grader_env.get(name) != value and name not in mine}

    def launch(self, argv: list[str], *, env: dict | None = None, cwd: str | None = None, pass_fds=(),
               stdout=None, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL) -> subprocess.Popen:
        """Start a process of the notebook's: its environment is ours, plus what `env` adds to the
        checker's environment as it started. Sandboxed, its working folder is its sandbox's scratch.
        A DATABASE_URL in `env` other than the checker's is a server the check started for it (the exam's
        own PostgreSQL, with a role that is not its superuser): the process reaches that one instead."""
        database = (env or {}).get("DATABASE_URL")
        database = database if database and database != self._grader_env.get("DATABASE_URL") else None
        if database and _login_of(database) == pgserver.SUPERUSER:
            raise ValueError("a notebook's process never logs in as the server's superuser: give it a role of its own")
        if self.sandboxed:
            return self._boxed(argv, self._added(env), postgres=database or self.conninfo, pass_fds=pass_fds,
                               stdin=stdin, stdout=stdout, stderr=stderr)
        mine = {**self.environment(), **self._added(env), **({"DATABASE_URL": database} if database else {})}
        process = subprocess.Popen(argv, env=mine, cwd=cwd or str(self.scratch), pass_fds=tuple(pass_fds),
                                   stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=True, close_fds=True,
                                   preexec_fn=_limited)
        self._started.append(process)
        return process

    def _boxed(self, argv: list[str], added: dict[str, str], *, postgres: str | None, **streams) -> "Boxed":
        from course.infra import sandbox

        policy = sandbox.Policy(read=[*sandbox.python_paths(), *readable_package()],
                                listable=[str(PACKAGE), str(PACKAGE / "grading")],
                                write=[str(self.exchange)], secrets=[*self.secrets, str(PACKAGE / "grading" / "checks")],
                                postgres=postgres,
                                tcp_connect=sorted({*self.ports, *ports_named(added)}), tcp_bind=self.ports,
                                own_network=False)
        box = sandbox.Sandbox(policy, prefix=f"{SANDBOX}{self.token}-")
        self._boxes.append(box)  # from now on end() closes it, whatever happens next
        env = {name: value for name, value in self.environment(home=box.scratch).items() if name != "PATH"}
        if box.conninfo:
            env["DATABASE_URL"] = box.conninfo  # the role's, through the sandbox's gate
        policy.env = {**env, **added}
        box.start(argv, **streams)
        return Boxed(box)

    def launch_spec(self, argv: list[str], specs: list[str], **options) -> subprocess.Popen:
        """processes.confine_untrusted's launcher: the child's spec files are copied where it may read them."""
        folder = self.specs_folder()
        copies = {}
        for spec in specs:
            copy = folder / f"{secrets.token_hex(6)}-{Path(spec).name}"
            fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as out, open(spec, "rb") as source:
                shutil.copyfileobj(source, out)
                os.fchmod(out.fileno(), 0o644)  # its sandbox may run as another uid: by descriptor, never by name
            copies[spec] = str(copy)
        for spec, copy in copies.items():
            argv = [arg.replace(spec, copy) for arg in argv]
        env = {k: v for k, v in (options.pop("env", None) or {}).items()}
        for spec, copy in copies.items():
            env = {k: v.replace(spec, copy) for k, v in env.items()}
        options.pop("cwd", None)
        return self.launch(argv, env=env, **options)

    def specs_folder(self) -> Path:
        """Where the workers' specs are copied: a folder of this process's own in the exchange, made with a
        name no one could guess, so none can be planted first (a symlink at a fixed name had the checker,
        as root, copy specs wherever it pointed); 0755: its sandboxes read it, none writes or renames in it."""
        if getattr(self, "_specs", None) is None:
            self._specs = Path(tempfile.mkdtemp(prefix="specs-", dir=self.exchange))
            self._specs.chmod(0o755)
        return self._specs

    def prelaunch(self, log: Path) -> None:
        """Start the answer host now, to import while this process does; start_host takes it."""
        self._early = launch_host(cwd=self.scratch, log=log, launch=self._host_launch)

    def start_host(self, log: Path):
        """The answer host (trusted.AnswerHost): the one prelaunch started, or a new one."""
        from course.grading.boundary.trusted import AnswerHost

        early, self._early = getattr(self, "_early", None), None
        return AnswerHost.adopt(*(early or launch_host(cwd=self.scratch, log=log, launch=self._host_launch)))

    def _host_launch(self, argv, *, env, cwd, pass_fds, stdout) -> subprocess.Popen:
        return self.launch(argv, env=env, cwd=cwd, pass_fds=pass_fds, stdout=stdout)

    # -- the end --------------------------------------------------------------------------------------------

    def leftovers(self) -> list[tuple[int, str]]:
        """(pid, command line) of every process still running that this confinement started, or that
        descends from one and kept its environment."""
        return marked(self.token)

    def end(self, rounds: int = 5) -> list[tuple[int, str]]:
        """Kill everything it started (their sessions, then whatever still carries the marker, or is in
        its sandboxes); what was still running when we began, for the gradebook to say."""
        for process in self._started:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        for process in self._started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)
        found = [*self._end_boxes(), *sweep(self.token, rounds)]
        if self.sandboxed:
            shutil.rmtree(self.exchange, ignore_errors=True)
        return found

    def _end_boxes(self) -> list[tuple[int, str]]:
        """Each sandbox's command killed (its session), then the sandbox ended: what the sandbox found
        still running then (a daemon that left the session) and what it could not end, if anything."""
        found = []
        for box in self._boxes:
            try:
                if box.started and box.ending is None:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(box.pid, signal.SIGKILL)
                ending = box.wait(10) or box.stop()
                if ending and ending.swept:
                    found.append((box.pid or 0, f"{ending.swept} process(es) it started, still running when it "
                                                f"ended (killed by its sandbox)"))
                found += [(left.pid, left.command) for left in box.leftovers()]
            finally:
                box.close()
        return found


class Boxed:
    """A sandboxed command as the checks hold a child process (subprocess.Popen's pid, poll, wait,
    send_signal, kill, returncode). It has ended when its sandbox has: nothing it started is left."""

    def __init__(self, box):
        self.box, self.pid, self.returncode = box, box.pid, None
        self.args = box.started and box.started.get("argv")

    def _ended(self, ending) -> int | None:
        if ending is not None and self.returncode is None:
            self.returncode = ending.exit if ending.exit is not None else 1
        return self.returncode

    def poll(self) -> int | None:
        return self.returncode if self.returncode is not None else self._ended(self.box.wait(0))

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and self._ended(self.box.wait(timeout)) is None:
            raise subprocess.TimeoutExpired(self.args or "sandboxed command", timeout)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def readable_package() -> list[str]:
    """The course package as a notebook's sandbox may read it: all of it but the checks (the reference's
    statements, the quizzes' keys), which run on the grader's side of the boundary only."""
    hidden = {PACKAGE / "grading" / "checks"}
    keep = []
    for entry in sorted((PACKAGE / "grading").iterdir()):
        if entry not in hidden:
            keep.append(str(entry))
    return [*(str(entry) for entry in sorted(PACKAGE.iterdir()) if entry.name != "grading"), *keep]


def _login_of(conninfo: str) -> str:
    from psycopg.conninfo import conninfo_to_dict

    return str(conninfo_to_dict(conninfo).get("user") or "")


def ports_named(env: dict[str, str]) -> list[int]:
    """The local TCP ports named in these variables' values (a provider's URL): the ones a sandbox may
    reach, beyond its database."""
    return sorted({int(port) for value in env.values()
                   for port in re.findall(r"(?:127\.0\.0\.1|localhost):(\d{1,5})\b", value)})


def marked(token: str) -> list[tuple[int, str]]:
    """Processes alive whose environment carries this confinement's marker."""
    marker = f"{MARKER}={token}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        found.append((int(entry.name), command[:200]))
    return found


EXCHANGE, SANDBOX = "course-exchange-", "course-sandbox-"  # /tmp folders of a run, named by its token


def remove_folders(token: str) -> list[Path]:
    """The /tmp folders a checker made for its run (its exchange, its sandboxes) and could not remove, killed at
    a time limit: removed, and named. Only real folders of this user's: a link or another user's is left."""
    removed = []
    for prefix in (EXCHANGE, SANDBOX):
        for path in Path("/tmp").glob(f"{prefix}{token}-*"):
            info = path.lstat()
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed


def sweep(token: str, rounds: int = 5) -> list[tuple[int, str]]:
    """Kill every process that carries the marker, round after round (one may fork as another dies);
    what was found running at first."""
    found = marked(token)
    for _ in range(rounds):
        now = marked(token)
        if not now:
            break
        for pid, _ in now:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
    return found


def _limited() -> None:
    """In the child, before it runs: dies with its parent (the checker), no core files, bounded files."""
    import ctypes
    import resource

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    for limit, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, 256 << 20)):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(limit, (value, value))
