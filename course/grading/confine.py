"""Where one notebook's code runs when a class is graded: the one seam between the grader and the sandbox.

    confinement = Confinement(scratch, conninfo=role_conninfo, deadline_s=...)
    host = confinement.start_host(log)        # the answer host (boundary/host.py), confined
    processes.confine_untrusted(confinement.launch_spec)   # workers the checks start with its code, too
    ...
    confinement.end()                          # everything it started is killed
    confinement.leftovers()                    # and this says what was still running (nothing, we hope)

Every process that runs the notebook's code starts here, with the environment of `environment()`
(its own database role, its scratch folder as home; nothing of the grader's), in a session of its
own, marked so it can be found and killed. Until course/infra/sandbox.py is on main this is a plain
child process: what it does not yet refuse (reading files, other processes) is said in README's
grading section.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from course.grading.boundary.launch import launch_host

MARKER = "COURSE_CONFINED"


def isolation() -> tuple[bool, str]:
    """Can the notebooks' code be confined here (enough to grade a class you do not trust), and how, in
    one line for the instructor."""
    return False, ("sandbox: none on this machine yet (course/infra/sandbox.py): each notebook's code runs "
                   "as you, in processes of its own, with your files within its reach")


class Confinement:
    def __init__(self, scratch: Path, *, conninfo: str | None, env: dict[str, str] | None = None,
                 token: str | None = None):
        self.scratch = Path(scratch).resolve()
        self.scratch.mkdir(parents=True, exist_ok=True)
        (self.scratch / "tmp").mkdir(exist_ok=True)
        self.exchange = self.scratch / "exchange"  # what its workers write and the checks read back
        self.exchange.mkdir(exist_ok=True)
        self.token = token or secrets.token_hex(8)  # the grader's, so it can sweep after a checker it killed
        self.conninfo = conninfo
        self.extra_env = dict(env or {})
        self._started: list[subprocess.Popen] = []
        self._grader_env = dict(os.environ)  # what a child's environment adds to this is the check's to give

    def environment(self) -> dict[str, str]:
        """All the environment the notebook's processes get: no password file, no grader's folders."""
        env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "HOME": str(self.scratch),
               "TMPDIR": str(self.scratch / "tmp"), "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1",
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "MPLBACKEND": "Agg",
               "COURSE_PROGRESS_FILE": str(self.scratch / "progress.json"),
               "COURSE_EXCHANGE_DIR": str(self.exchange), "COURSE_LOG_DIR": str(self.scratch / "logs"),
               MARKER: self.token, **self.extra_env}
        if self.conninfo:
            env["DATABASE_URL"] = self.conninfo
        return env

    def launch(self, argv: list[str], *, env: dict | None = None, cwd: str | None = None, pass_fds=(),
               stdout=None, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL) -> subprocess.Popen:
        """Start a process of the notebook's: its environment is ours, plus what `env` adds to the
        checker's environment as it started (a check's EMAIL_PROVIDER_URL, say)."""
        mine = self.environment()
        for name, value in (env or {}).items():
            if self._grader_env.get(name) != value and name not in mine:
                mine[name] = value
        process = subprocess.Popen(argv, env=mine, cwd=cwd or str(self.scratch), pass_fds=tuple(pass_fds),
                                   stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=True, close_fds=True,
                                   preexec_fn=_limited)
        self._started.append(process)
        return process

    def launch_spec(self, argv: list[str], specs: list[str], **options) -> subprocess.Popen:
        """processes.confine_untrusted's launcher: the child's spec files are copied where it may read them."""
        folder = self.exchange / "specs"
        folder.mkdir(exist_ok=True)
        copies = {}
        for spec in specs:
            copy = folder / f"{secrets.token_hex(6)}-{Path(spec).name}"
            shutil.copyfile(spec, copy)
            copies[spec] = str(copy)
        for spec, copy in copies.items():
            argv = [arg.replace(spec, copy) for arg in argv]
        env = {k: v for k, v in (options.pop("env", None) or {}).items()}
        for spec, copy in copies.items():
            env = {k: v.replace(spec, copy) for k, v in env.items()}
        options.pop("cwd", None)
        return self.launch(argv, env=env, **options)

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
        """Kill everything it started (their sessions, then whatever still carries the marker); what was
        still running when we began, for the gradebook to say."""
        for process in self._started:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        for process in self._started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)
        return sweep(self.token, rounds)


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
