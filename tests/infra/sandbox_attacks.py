"""Hostile programs run in course.infra.sandbox, and what the trusted side sees afterwards.

Each attack runs one small program in a sandbox of its own and judges it from outside: a secret's text
must not appear in what the program printed, a file must be unchanged, a process must not exist, a
signal must not have arrived. A program can lie about what it did; the verdicts never trust its word
for a success, only use it to say what happened.

tests/infra/test_sandbox.py runs them as root in this process, and as a normal user (a throwaway account) in a
subprocess: `python tests/infra/sandbox_attacks.py`, which prints one JSON object of verdicts.

Each verdict is ("held", what happened), ("broken", what got through) or ("not promised", why): an
attack on a guarantee that `probe()` says this machine cannot keep is not run when running it could hurt
(kill(-1) as you), and is otherwise run and reported as it went.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import secrets
import signal
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql

CHECKOUT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(CHECKOUT))

from course.infra import sandbox  # noqa: E402  (the checkout first, when run as a script)
from course.grading import roles  # noqa: E402

SCRATCH_BYTES = 16 << 20
PROCESSES = 40
DEADLINE_S = 90.0


@dataclass
class Run:
    printed: dict
    raw: str
    ending: sandbox.Ending
    leftovers: list
    box: sandbox.Sandbox


@dataclass
class Lab:
    """What the attacks aim at, made for them, and the sandbox policy they run under."""

    folder: Path
    login: str  # the sandbox's own role, its connection string (the gate's upstream)
    superuser_password: str  # handed to some attacks: the gate must refuse the superuser even with it
    postgres_socket: str  # the server's unix socket, as a program would find it
    pgpass: Path
    secrets_tokens: dict[str, str] = field(default_factory=dict)
    secret_paths: list[Path] = field(default_factory=list)
    notebook: Path | None = None
    out: Path | None = None
    caller_token: str = ""
    allowed_port: int = 0
    other_port: int = 0
    unix_socket: str = ""
    unix_connections: list = field(default_factory=list)
    signals: list = field(default_factory=list)
    isolation: sandbox.Isolation | None = None

    def policy(self, **changes) -> sandbox.Policy:
        settings = dict(read=[*sandbox.python_paths(), str(self.notebook)], secrets=[str(p) for p in self.secret_paths],
                        postgres=self.login, tcp_connect=[self.allowed_port], processes=PROCESSES,
                        scratch_bytes=SCRATCH_BYTES, file_bytes=8 << 20, memory_bytes=1 << 30,
                        deadline_s=DEADLINE_S, env={"TARGETS": json.dumps(self.targets())})
        settings.update(changes)
        return sandbox.Policy(**settings)

    def targets(self) -> dict:
        return {"secrets": [str(p) for p in self.secret_paths], "pgpass": str(self.pgpass),
                "notebook": str(self.notebook), "out": str(self.out), "caller": os.getpid(),
                "socket": self.postgres_socket,
                "allowed_port": self.allowed_port, "other_port": self.other_port, "unix_socket": self.unix_socket,
                "marker": str(self.folder / "copy-to-program-ran")}

    def run(self, program: str, **changes) -> Run:
        log = self.folder / f"out-{secrets.token_hex(4)}.txt"
        with sandbox.Sandbox(self.policy(**changes), isolation=self.isolation) as box, open(log, "w") as out:
            env_conninfo = box.conninfo
            box.policy.env["CONNINFO"] = env_conninfo
            box.start([sys.executable, "-c", PRELUDE + program], stdout=out, stderr=out)
            ending = box.wait(DEADLINE_S + 60)
            left = box.leftovers()
        raw = log.read_text(errors="replace")
        printed = {}
        for line in raw.splitlines():
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    printed.update(json.loads(line))
        return Run(printed, raw, ending, left, box)

    def leaked(self, run: Run) -> list[str]:
        """The secrets whose text appears in what the program printed (raw, or inside its JSON)."""
        text = run.raw + "\n".join(_strings(run.printed))
        return [name for name, token in [*self.secrets_tokens.items(), ("the caller's environment", self.caller_token)]
                if token and token in text]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


PRELUDE = """\
import json, os, sys, time, socket, signal
T = json.loads(os.environ["TARGETS"])
def say(**what): print(json.dumps(what), flush=True)
def attempt(f):
    try:
        return "DONE: " + repr(f())[:300]
    except BaseException as error:
        return f"refused: {type(error).__name__}: {error}"[:300]
"""


# -- the attacks -----------------------------------------------------------------------------------------------

def attack_read_secrets(lab: Lab):
    run = lab.run("""
def walk(path, depth=0):
    got = {}
    if os.path.isdir(path):
        got[path] = attempt(lambda: os.listdir(path))
        try:
            for name in os.listdir(path)[:20]:
                got.update(walk(os.path.join(path, name), depth + 1))
        except OSError:
            pass
    else:
        got[path] = attempt(lambda: open(path, errors="replace").read())
    return got
got = {}
for path in T["secrets"] + [T["pgpass"], f"/proc/{T['caller']}/environ", f"/proc/{T['caller']}/cmdline",
                            "/proc/1/environ", f"/proc/{os.getppid()}/environ"]:
    got.update(walk(path))
say(got=got)
""")
    leaked = lab.leaked(run)
    if leaked:
        return "broken", f"read {leaked}"
    opened = [p for p, what in run.printed.get("got", {}).items() if what.startswith("DONE") and "/proc/" not in p]
    if opened:
        return "broken", f"opened {opened}"
    return "held", f"{len(run.printed.get('got', {}))} paths refused"


def attack_write_outside(lab: Lab):
    victims = {p: _fingerprint(p) for p in (lab.notebook, lab.out / "gradebook.csv", lab.secret_paths[-1])}
    planted = [Path(tempfile.gettempdir()) / f"course-sandbox-planted-{secrets.token_hex(4)}",
               lab.out / "planted.csv", CHECKOUT / f"planted-{secrets.token_hex(4)}"]
    run = lab.run("""
planted = json.loads(os.environ["PLANTED"])
victims = [T["notebook"], T["out"] + "/gradebook.csv"]
got = {}
for path in planted:
    got["create " + path] = attempt(lambda: open(path, "w").write("x"))
for path in victims:
    got["append " + path] = attempt(lambda: open(path, "a").write("passed"))
    got["truncate " + path] = attempt(lambda: os.truncate(path, 0))
    got["rename " + path] = attempt(lambda: os.rename(path, path + ".moved"))
    got["remove " + path] = attempt(lambda: os.remove(path))
    got["link " + path] = attempt(lambda: os.link(path, "stolen"))
    got["chmod " + path] = attempt(lambda: os.chmod(path, 0o777))
got["scratch"] = attempt(lambda: open("mine.txt", "w").write("ok"))
say(got=got)
""", env={"TARGETS": json.dumps(lab.targets()), "PLANTED": json.dumps([str(p) for p in planted])})
    changed = [str(p) for p, before in victims.items() if _fingerprint(p) != before]
    made = [p for p in planted if p.exists()]
    for path in made:
        path.unlink()
    if changed or made:
        return "broken", f"changed {changed}, made {made}"
    if not run.printed.get("got", {}).get("scratch", "").startswith("DONE"):
        return "broken", f"could not even write its scratch folder: {run.raw[-500:]}"
    return "held", f"{len(run.printed['got']) - 1} writes refused, scratch written"


def _fingerprint(path: Path):
    try:
        info = path.stat()
        return info.st_size, info.st_mtime_ns, info.st_mode, path.read_bytes()
    except FileNotFoundError:
        return None


def attack_postgres_superuser(lab: Lab):
    run = lab.run("""
import psycopg
from psycopg.conninfo import make_conninfo
inside = os.environ["CONNINFO"]
got = {}
got["own role"] = attempt(lambda: psycopg.connect(inside).execute("select current_user").fetchone())
password = os.environ["SUPERUSER_PASSWORD"]
got["superuser through the gate, with its password"] = attempt(lambda: psycopg.connect(
    make_conninfo(inside, user="postgres", password=password)).execute("select 1").fetchone())
got["superuser on the server's socket"] = attempt(lambda: psycopg.connect(
    host=os.path.dirname(T["socket"]), user="postgres", password=password, dbname="postgres"))
got["raw unix socket"] = attempt(lambda: socket.socket(socket.AF_UNIX).connect(T["socket"]))
got["replication"] = attempt(lambda: psycopg.connect(inside + " replication=database"))
say(got=got)
""", env={"TARGETS": json.dumps(lab.targets()), "SUPERUSER_PASSWORD": lab.superuser_password})
    got = run.printed.get("got", {})
    through = [k for k, v in got.items() if v.startswith("DONE") and k != "own role"]
    if through:
        return "broken", f"got in: {through}"
    if not got.get("own role", "").startswith("DONE"):
        return "broken", f"its own role could not log in: {got.get('own role')} {run.raw[-400:]}"
    return "held", got["superuser through the gate, with its password"][:160]


def attack_another_database(lab: Lab):
    """A classmate's database (here: postgres, which any role may enter) is where its LISTEN channels and
    advisory locks live: the gate admits only the database the sandbox was given."""
    run = lab.run("""
import psycopg
from psycopg.conninfo import make_conninfo
inside = os.environ["CONNINFO"]
got = {}
got["own database"] = attempt(lambda: psycopg.connect(inside).execute("select current_database()").fetchone())
for other in ("postgres", "template1"):
    got[other] = attempt(lambda: psycopg.connect(make_conninfo(inside, dbname=other)).execute("select 1").fetchone())
say(got=got)
""")
    got = run.printed.get("got", {})
    through = [k for k, v in got.items() if v.startswith("DONE") and k != "own database"]
    if through:
        return "broken", f"got in: {through}"
    if not got.get("own database", "").startswith("DONE"):
        return "broken", f"its own database refused it: {got.get('own database')} {run.raw[-400:]}"
    return "held", got["postgres"][:160]


def attack_copy_to_program(lab: Lab):
    run = lab.run("""
import psycopg
conn = psycopg.connect(os.environ["CONNINFO"], autocommit=True)
got = {}
for statement in [f"COPY (SELECT 1) TO PROGRAM 'touch {T['marker']}'",
                  "CREATE TABLE mine(x int)", f"COPY mine FROM PROGRAM 'touch {T['marker']}'",
                  "SET ROLE postgres", "ALTER ROLE CURRENT_USER SUPERUSER",
                  "SELECT pg_read_file('postgresql.conf')", "CREATE EXTENSION IF NOT EXISTS file_fdw",
                  "GRANT pg_execute_server_program TO CURRENT_USER"]:
    got[statement] = attempt(lambda: conn.execute(statement))
say(got=got)
""")
    marker = Path(lab.targets()["marker"])
    if marker.exists():
        marker.unlink()
        return "broken", "a program ran on the server's machine"
    got = run.printed.get("got", {})
    done = [k for k, v in got.items() if v.startswith("DONE") and not k.startswith("CREATE TABLE")]
    if done or not got:
        return "broken", f"allowed: {done} {run.raw[-300:]}"
    return "held", got[next(iter(got))][:160]


def attack_signals_and_ptrace(lab: Lab):
    iso = lab.isolation
    if not iso.other_uid and not iso.pidns and not iso.guards_pids:
        return "not promised", "signals to your own processes are not blocked here: not tried (kill(-1) would end the test)"
    before = len(lab.signals)
    nice, files = os.getpriority(os.PRIO_PROCESS, 0), resource.getrlimit(resource.RLIMIT_NOFILE)
    run = lab.run("""
import ctypes, resource, subprocess
libc = ctypes.CDLL(None, use_errno=True)
def ptrace(pid):
    if libc.ptrace(16, pid, 0, 0) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
got = {"renice itself": attempt(lambda: os.setpriority(os.PRIO_PROCESS, 0, 5))}
for name, pid in [("caller", T["caller"]), ("parent", os.getppid())]:
    got["signal " + name] = attempt(lambda: os.kill(pid, signal.SIGUSR2))
    got["ptrace " + name] = attempt(lambda: ptrace(pid))
    got["renice " + name] = attempt(lambda: os.setpriority(os.PRIO_PROCESS, pid, 19))
    got["limit " + name] = attempt(lambda: resource.prlimit(pid, resource.RLIMIT_NOFILE, (16, 16)))
    group = attempt(lambda: os.getpgid(pid))
    if group.startswith("DONE") and int(group[6:]) not in (0, os.getpgid(0)):  # 0: outside its namespace
        got["signal the group of " + name] = attempt(lambda: os.killpg(int(group[6:]), signal.SIGUSR2))
got["kill -1"] = attempt(lambda: os.kill(-1, signal.SIGUSR2))
got["renice every process of its uid"] = attempt(lambda: os.setpriority(os.PRIO_USER, os.getuid(), 19))
got["kill parent"] = attempt(lambda: os.kill(os.getppid(), signal.SIGKILL))
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
got["kill its own child"] = attempt(lambda: (child.kill(), child.wait())[1])
time.sleep(0.2)
say(got=got, alive=True)
""")
    time.sleep(0.3)
    got = run.printed.get("got", {})
    arrived = len(lab.signals) - before
    # Its parent is the warden, or (in a PID namespace) its init, which it may renice or limit: init
    # only waits for it, so that hurts the sandbox alone. Renicing "every process of its uid" reaches only
    # its own where it has an uid or a namespace of its own; where it would reach yours the priority
    # check below sees it.
    ours = ["caller"] + ([] if run.box.started.get("init") else ["parent"])
    harmed = [k for k, v in got.items() if v.startswith("DONE") and (
        k.startswith("ptrace") or (k.split()[0] in ("renice", "limit") and k.split()[-1] in ours))]
    if nice != os.getpriority(os.PRIO_PROCESS, 0) or files != resource.getrlimit(resource.RLIMIT_NOFILE):
        harmed.append("the caller's priority or limits changed")
    if arrived or harmed:
        return "broken", f"{arrived} signals reached the caller; {harmed} worked"
    if run.ending.why != "exited" or not run.printed.get("alive"):
        return "broken", f"the sandbox's own supervision was hurt: {run.ending} {run.raw[-300:]}"
    if not got.get("kill its own child", "").startswith("DONE") or not got.get("renice itself", "").startswith("DONE"):
        return "broken", f"it could not even signal its own child or renice itself: {got}"
    return "held", "no signal arrived, no ptrace, renice or limit on others; its own child killed; the warden kept watch"


def attack_daemon(lab: Lab):
    tag = f"{secrets.randbelow(10**6)}.{secrets.randbelow(10**6)}"
    run = lab.run(f"""
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "{tag}"])
    os._exit(0)
time.sleep(0.3)
say(daemon="{tag}")
""")
    alive = _processes_with_argument(tag)
    if alive or run.leftovers:
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return "broken", f"outlived the sandbox: {alive} {run.leftovers}"
    if run.printed.get("daemon") != tag:
        return "broken", f"the daemon was not even started: {run.raw[-300:]}"
    if run.ending.swept != 1:
        return "broken", f"the daemon it left running was not counted: {run.ending}"
    return "held", f"the daemon died with the sandbox ({run.ending.swept} swept)"


def _processes_with_argument(tag: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if tag.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
    return found


def attack_fork_bomb(lab: Lab):
    run = lab.run("""
n = 0
try:
    while n < 5000:
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
        n += 1
    say(forked=n, error=None)
except OSError as error:
    say(forked=n, error=str(error))
""")
    forked, error = run.printed.get("forked"), run.printed.get("error")
    if forked is None or not error or forked > PROCESSES or run.leftovers:
        return "broken", f"forked {forked} ({error}); left {run.leftovers}"
    return "held", f"stopped after {forked} processes: {error}"


def attack_fill_the_disk(lab: Lab):
    run = lab.run("""
written, error, n = 0, None, 0
block = b"x" * (1 << 20)
try:
    while written < 10 * (1 << 30):
        with open(f"fill-{n}", "wb") as out:
            for _ in range(4):
                out.write(block)
                out.flush()
                written += len(block)
        n += 1
except OSError as error_:
    error = str(error_)
say(written=written, error=error)
time.sleep(5)
""")
    written, error = run.printed.get("written"), run.printed.get("error")
    if run.ending.why == "disk full":
        return "held", f"killed at the scratch limit (polled): {written} bytes reported"
    if not error or written is None or written > SCRATCH_BYTES:
        return "broken", f"wrote {written} bytes ({error}), {run.ending}"
    return "held", f"stopped at {written} bytes: {error}"


def attack_memory_and_file_size(lab: Lab):
    run = lab.run("""
got = {"memory": attempt(lambda: len(bytearray(3 << 30))),
       "file": attempt(lambda: open("big", "wb").write(b"x" * (16 << 20)))}
say(got=got)
""", scratch_bytes=64 << 20)
    got = run.printed.get("got", {})
    if not got or any(v.startswith("DONE") for v in got.values()):
        return "broken", f"{got} {run.raw[-300:]}"
    return "held", f"memory: {got['memory'][:60]}; file: {got['file'][:60]}"


def attack_cpu_time(lab: Lab):
    """A process that spins for ever stops at its CPU time (RLIMIT_CPU), by SIGXCPU, before the deadline:
    1 s of CPU took 34 s of wall time at load 45 on 2 cores with two spinning; one spinning gets twice the
    share, and the deadline is 90 s."""
    run = lab.run("""
while True:
    pass
""", cpu_seconds=1)
    if run.ending.why != "exited" or run.ending.exit != -signal.SIGXCPU or run.leftovers:
        return "broken", f"{run.ending}, left {run.leftovers}"
    return "held", f"stopped by SIGXCPU after {run.ending.seconds:.1f} s"


def attack_unix_socket_and_ports(lab: Lab):
    before = len(lab.unix_connections)
    run = lab.run("""
got = {"unix socket": attempt(lambda: socket.socket(socket.AF_UNIX).connect(T["unix_socket"])),
       "abstract socket": attempt(lambda: socket.socket(socket.AF_UNIX).connect("\\0course-sandbox-test")),
       "port not named": attempt(lambda: socket.create_connection(("127.0.0.1", T["other_port"]), 5).close()),
       "port named": attempt(lambda: socket.create_connection(("127.0.0.1", T["allowed_port"]), 5).close())}
say(got=got)
""")
    got = run.printed.get("got", {})
    through = [k for k, v in got.items() if v.startswith("DONE") and k != "port named"]
    if len(lab.unix_connections) > before or through:
        return "broken", f"reached {through}, unix connections {len(lab.unix_connections) - before}"
    if lab.isolation.landlock_abi < 4:
        return "not promised", "TCP ports are not controlled (Landlock ABI < 4)"
    if not got.get("port named", "").startswith("DONE"):
        return "broken", f"the named port was refused: {got.get('port named')}"
    return "held", "no unix socket, only the named port"


def attack_ports_on_the_machines_loopback(lab: Lab):
    """As the grader confines a notebook (Policy.own_network=False): no namespace of its own, Landlock's
    port rules only. It reaches the named ports and serves on its bind port, and nothing else."""
    bind_port = _free_port()
    run = lab.run("""
def serve(port):
    with socket.create_server(("127.0.0.1", port)) as server:
        with socket.create_connection(("127.0.0.1", port), 5):
            return port
got = {"port not named": attempt(lambda: socket.create_connection(("127.0.0.1", T["other_port"]), 5).close()),
       "serve on a port not named": attempt(lambda: serve(0)),
       "port named": attempt(lambda: socket.create_connection(("127.0.0.1", T["allowed_port"]), 5).close()),
       "serve on its port": attempt(lambda: serve(int(os.environ["BIND_PORT"])))}
say(got=got)
""", own_network=False, tcp_connect=[lab.allowed_port, bind_port], tcp_bind=[bind_port],
                  env={"TARGETS": json.dumps(lab.targets()), "BIND_PORT": str(bind_port)})
    got = run.printed.get("got", {})
    through = [k for k in ("port not named", "serve on a port not named") if got.get(k, "").startswith("DONE")]
    if lab.isolation.landlock_abi < 4:
        return "not promised", "TCP ports are not controlled on the machine's loopback (Landlock ABI < 4)"
    if through or not got:
        return "broken", f"got through: {through or run.raw[-300:]}"
    refused = [k for k in ("port named", "serve on its port") if not got.get(k, "").startswith("DONE")]
    if refused:
        return "broken", f"refused what it was given: {[got[k] for k in refused]}"
    return "held", "only the named port, and its own port to serve on"


def attack_write_a_shared_folder(lab: Lab):
    """Policy.write: a folder shared with it is writable; the folder beside it is not."""
    shared, beside = lab.folder / "shared", lab.folder / "beside"
    for folder in (shared, beside):
        folder.mkdir(exist_ok=True)
        folder.chmod(0o1777)  # its uid may write both: only Landlock tells them apart
    run = lab.run("""
got = {"shared": attempt(lambda: open(os.environ["SHARED"] + "/mine.txt", "w").write("mine")),
       "beside": attempt(lambda: open(os.environ["BESIDE"] + "/mine.txt", "w").write("mine"))}
say(got=got)
""", write=[str(shared)], env={"TARGETS": json.dumps(lab.targets()), "SHARED": str(shared), "BESIDE": str(beside)})
    got = run.printed.get("got", {})
    if (beside / "mine.txt").exists():
        return "broken", "wrote the folder beside the shared one"
    if not (shared / "mine.txt").exists():
        return "broken", f"could not write the shared folder: {got.get('shared') or run.raw[-300:]}"
    return "held", "wrote the shared folder only"


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


def attack_environment(lab: Lab):
    run = lab.run("say(env=dict(os.environ))")
    env = run.printed.get("env", {})
    unexpected = set(env) - {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "PYTHONNOUSERSITE",
                             "TARGETS", "CONNINFO", sandbox.MARKER, "LC_CTYPE"}
    if lab.leaked(run) or unexpected or not env:
        return "broken", f"leaked {lab.leaked(run)}, unexpected {unexpected}"
    return "held", f"only {sorted(env)}"


def attack_deadline(lab: Lab):
    started = time.monotonic()
    run = lab.run("""
if os.fork() == 0:
    time.sleep(600)
time.sleep(600)
""", deadline_s=2.0)
    took = time.monotonic() - started
    if run.ending.why != "deadline" or run.leftovers:
        return "broken", f"{run.ending}, left {run.leftovers}"
    return "held", f"stopped at the deadline ({took:.1f} s with start-up)"


def normal_program(lab: Lab):
    run = lab.run("""
import psycopg, subprocess, threading
got = {}
def database():
    with psycopg.connect(os.environ["CONNINFO"], autocommit=True) as conn:
        # a schema named after this run's own role: the drivers of other modes (other xdist workers) share the
        # database, and a schema 'mine' another role made first refused this one (CI10)
        mine = conn.execute("SELECT current_user").fetchone()[0]  # course_sandbox_test_<hex>: no quoting needed
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {mine}")
        conn.execute(f"CREATE TABLE {mine}.jobs (id serial primary key, payload text)")
        conn.execute(f"INSERT INTO {mine}.jobs (payload) VALUES (%s)", ["hello"])
        return conn.execute(f"SELECT payload FROM {mine}.jobs").fetchone()[0]
got["database"] = attempt(database)
got["notebook"] = attempt(lambda: len(open(T["notebook"]).read()))
got["scratch"] = attempt(lambda: open("notes.txt", "w").write("mine") and open("notes.txt").read())
def echo():
    with socket.create_connection(("127.0.0.1", T["allowed_port"]), 5) as s:
        s.sendall(b"ping")
        return s.recv(4)
got["tcp"] = attempt(echo)
got["child process"] = attempt(lambda: subprocess.run([sys.executable, "-c", "print(6 * 7)"],
                                                      capture_output=True, text=True, check=True).stdout.strip())
def thread():
    box = []
    t = threading.Thread(target=lambda: box.append(1)); t.start(); t.join()
    return box
got["thread"] = attempt(thread)
def own_server():
    with socket.create_server(("127.0.0.1", 0)) as server:
        with socket.create_connection(server.getsockname(), 5):
            return server.getsockname()[1]
if os.environ.get("OWN_SERVER"):
    got["its own TCP server"] = attempt(own_server)
if os.environ.get("OWN_SHM"):
    import multiprocessing
    got["a multiprocessing lock"] = attempt(lambda: multiprocessing.Lock().acquire())
say(got=got)
""", env={"TARGETS": json.dumps(lab.targets()), **({"OWN_SERVER": "1"} if lab.isolation.netns else {}),
          **({"OWN_SHM": "1"} if lab.isolation.mountns else {})})
    got = run.printed.get("got", {})
    failed = {k: v for k, v in got.items() if not v.startswith("DONE")}
    if failed or not got or run.ending.exit != 0:
        return "broken", f"a normal program failed: {failed or run.raw[-500:]}"
    return "held", f"{', '.join(got)}: all worked ({run.ending.seconds:.2f} s)"


ATTACKS = {
    "read .course/pgpass, solutions/, other submissions, the output folder, /proc": attack_read_secrets,
    "write outside scratch (the notebook, the gradebook, /tmp, the checkout)": attack_write_outside,
    "PostgreSQL as the superuser (with its password), on the socket, replication": attack_postgres_superuser,
    "another database (a classmate's channels and advisory locks) through the gate": attack_another_database,
    "COPY ... TO PROGRAM and other escalations": attack_copy_to_program,
    "signal or ptrace the caller and the warden": attack_signals_and_ptrace,
    "a double-forked daemon": attack_daemon,
    "a fork bomb": attack_fork_bomb,
    "fill the disk": attack_fill_the_disk,
    "memory and file size": attack_memory_and_file_size,
    "CPU time: spinning for ever": attack_cpu_time,
    "unix sockets, abstract sockets, TCP ports not named": attack_unix_socket_and_ports,
    "TCP on the machine's loopback (the grader's setting): ports not named": attack_ports_on_the_machines_loopback,
    "write a folder shared with it, and the one beside it": attack_write_a_shared_folder,
    "the environment": attack_environment,
    "the deadline": attack_deadline,
    "a normal program works": normal_program,
}


# -- the lab: targets made for the attacks --------------------------------------------------------------------


@contextlib.contextmanager
def lab(superuser_conninfo: str, pgpass: Path, socket_path: str, solutions: Path):
    """Everything the attacks aim at: secret files with tokens in them, a role of the sandbox's own, a
    TCP port it may use and one it may not, a unix socket anyone may open; removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="course-attacks-"))
    folder.chmod(0o755)
    role, password = f"course_sandbox_test_{secrets.token_hex(4)}", secrets.token_hex(16)
    with psycopg.connect(superuser_conninfo, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
        # A GRANT on the database updates its shared catalog row: under the graders' lock, as roles.py does, or
        # a grader (or this driver in another xdist worker) doing the same at once fails one of them with
        # "tuple concurrently updated" (CI8: three rows errored at setup).
        with roles.catalog_lock(conn):
            conn.execute(sql.SQL("GRANT CONNECT, CREATE, TEMPORARY ON DATABASE {} TO {}").format(
                sql.Identifier(conn.info.dbname), sql.Identifier(role)))
    try:
        superuser_password = pgpass.read_text().strip().rsplit(":", 1)[1]
        from psycopg.conninfo import make_conninfo

        login = make_conninfo(superuser_conninfo, user=role, password=password)
        found = Lab(folder, login, superuser_password, socket_path, pgpass)
        found.secrets_tokens["pgpass"] = superuser_password
        other = folder / "submissions" / "classmate" / "03_postgres_queue.ipynb"
        other.parent.mkdir(parents=True)
        found.secrets_tokens["another submission"] = _secret_file(other)
        found.out = folder / "gradebook"
        found.out.mkdir()
        found.secrets_tokens["the gradebook"] = _secret_file(found.out / "gradebook.csv")
        solution = sorted(solutions.glob("*.ipynb"))[0]
        found.secrets_tokens["solutions/"] = solution.read_text()[:200]  # what a read shows (300 characters)
        found.secret_paths = [pgpass.parent, solutions, folder / "submissions", found.out, other]
        found.notebook = folder / "mine" / "03_postgres_queue.ipynb"
        found.notebook.parent.mkdir()
        found.notebook.write_text('{"cells": []}')
        for path in (found.notebook, found.notebook.parent, found.out, found.out / "gradebook.csv"):
            path.chmod(0o755 if path.is_dir() else 0o644)  # world-readable: only Landlock stands in the way
        found.caller_token = os.environ.setdefault("COURSE_ATTACKS_CALLER_SECRET", secrets.token_hex(12))
        with _listeners(found):
            signal.signal(signal.SIGUSR2, lambda *_: found.signals.append(time.time()))
            yield found
    finally:
        # DROP OWNED revokes the GRANT above: the same catalog row, under the same lock
        with psycopg.connect(superuser_conninfo, autocommit=True) as conn, roles.catalog_lock(conn):
            conn.execute(sql.SQL("DROP OWNED BY {} CASCADE").format(sql.Identifier(role)))
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def _secret_file(path: Path) -> str:
    token = "secret-" + secrets.token_hex(12)
    path.write_text(f"{{'answer': '{token}'}}\n")
    path.chmod(0o644)
    return token


@contextlib.contextmanager
def _listeners(found: Lab):
    """An echo server on a port the sandbox may use, another on one it may not, and a unix socket."""
    servers = [socket.create_server(("127.0.0.1", 0)) for _ in range(2)]
    found.allowed_port, found.other_port = (s.getsockname()[1] for s in servers)
    found.unix_socket = str(found.folder / "anyone.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(found.unix_socket)
    os.chmod(found.unix_socket, 0o777)
    unix.listen()
    stop = threading.Event()

    def serve(listener, record=None):
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            if record is not None:
                record.append(1)
            with conn:
                conn.settimeout(2)
                with contextlib.suppress(OSError):
                    conn.sendall(conn.recv(64))

    threads = [threading.Thread(target=serve, args=(s,), daemon=True) for s in servers]
    threads.append(threading.Thread(target=serve, args=(unix, found.unix_connections), daemon=True))
    for t in threads:
        t.start()
    try:
        yield
    finally:
        stop.set()
        for t in threads:
            t.join(5)
        for s in [*servers, unix]:
            s.close()


def run_all(found: Lab, names: list[str] | None = None) -> dict[str, tuple[str, str]]:
    found.isolation = found.isolation or sandbox.probe()
    verdicts = {}
    for name, attack in ATTACKS.items():
        if names and name not in names:
            continue
        try:
            verdicts[name] = attack(found)
        except Exception as error:  # noqa: BLE001 — the test reports it as broken, with what happened
            verdicts[name] = ("broken", f"the attack's harness failed: {type(error).__name__}: {error}")
    return verdicts


# The machines we promise, and two holes made on purpose: there the attacks must get through (a test that
# cannot fail proves nothing). Each is this machine with parts of the isolation taken away.
ROOT_MODES = {
    "root": {},
    "root without a PID namespace (a container without CAP_SYS_ADMIN)": {"COURSE_SANDBOX_WITHOUT": "pidns"},
    "root without Landlock (a deliberate hole)": {"COURSE_SANDBOX_WITHOUT": "landlock"},
}
USER_MODES = {
    "a user with user namespaces (Debian, Fedora)": {},
    "a user without user namespaces (Ubuntu 24.04 on a 6.12+ kernel)": {"COURSE_SANDBOX_WITHOUT": "userns"},
    "a user without user namespaces, Landlock ABI 4 (Ubuntu 24.04's 6.8 kernel)":
        {"COURSE_SANDBOX_WITHOUT": "userns", "COURSE_SANDBOX_LANDLOCK_ABI": "4"},
    "a user without user namespaces or seccomp (a deliberate hole)": {"COURSE_SANDBOX_WITHOUT": "userns,seccomp"},
}
HOLES = {  # mode -> the attacks that must get through it
    "root without Landlock (a deliberate hole)": ["read .course/pgpass, solutions/, other submissions, the output folder, /proc",
                                                  "write outside scratch (the notebook, the gradebook, /tmp, the checkout)",
                                                  "write a folder shared with it, and the one beside it"],
    "a user without user namespaces or seccomp (a deliberate hole)": [
        "write outside scratch (the notebook, the gradebook, /tmp, the checkout)",
        "PostgreSQL as the superuser (with its password), on the socket, replication",
        "unix sockets, abstract sockets, TCP ports not named"],
}  # (without seccomp, TCP on the machine's loopback still holds: Landlock's port rules alone keep it)


def run_modes(modes: dict[str, dict[str, str]], superuser_conninfo: str, pgpass: Path, socket_path: str) -> dict:
    """Every attack in every mode: {mode: {"isolation", "enough", "missing", "verdicts"}}."""
    from course.infra.sandbox import isolation

    results = {}
    for mode, settings in modes.items():
        saved = {name: os.environ.get(name) for name in ("COURSE_SANDBOX_WITHOUT", "COURSE_SANDBOX_LANDLOCK_ABI")}
        try:
            for name in saved:
                os.environ.pop(name, None)
            os.environ.update(settings)
            isolation.probe.cache_clear()
            found_isolation = isolation.probe()
        finally:
            for name, value in saved.items():
                os.environ.pop(name, None)
                if value is not None:
                    os.environ[name] = value
            isolation.probe.cache_clear()
        started = time.monotonic()
        with lab(superuser_conninfo, pgpass, socket_path, CHECKOUT / "solutions") as found:
            found.isolation = found_isolation
            verdicts = run_all(found)
        results[mode] = {"isolation": found_isolation.line(), "enough": found_isolation.enough,
                         "missing": found_isolation.missing(), "seconds": round(time.monotonic() - started, 1),
                         "verdicts": verdicts}
    return results


def main(argv: list[str]) -> None:
    """`python tests/infra/sandbox_attacks.py root|user [--private-db]`: that account's modes, one JSON object on
    stdout. --private-db: a PostgreSQL of its own (an account other than the checkout's owner)."""
    modes = ROOT_MODES if argv[1] == "root" else USER_MODES
    if "--private-db" in argv:
        from course.infra.private_server import PrivateServer

        with PrivateServer("course-pg-sandbox-") as server:
            pg = server.server
            print(json.dumps(run_modes(modes, pg.conninfo(), pg.password_file, str(pg.socket_dir / ".s.PGSQL.5432"))))
        return
    from course.infra import db

    db.database()
    pg = db.embedded()
    print(json.dumps(run_modes(modes, pg.conninfo(), pg.password_file, str(pg.socket_dir / ".s.PGSQL.5432"))))


if __name__ == "__main__":
    main(sys.argv)
