"""Lab 13's JetStream cluster: three (1 to 9) NATS servers on 127.0.0.1 that replicate streams, so a
lab can kill a stream's leader and see the stream survive.

Every node is a child process of ours (course/infra/processes.py), started from the same binary as the
single server in nats_server.py; it is stopped by `stop()`, by leaving a `with` block, and at exit of this
Python process whatever happened. A cluster has a token of its own, not the checkout's: its clients in
this process show it (broker.connect asks nats_server.token), the consumer processes started for it are
handed it (jetstream_run), and a client of another cluster (another notebook's, when a class is graded)
is refused.
"""

from __future__ import annotations

import atexit
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from course.errors import BrokerUnavailable, CourseError
from course.infra import nats_server, processes
from course.infra.broker import TRANSIENT, stream_info

CLUSTER_NODE_CONF = """\
# Written by course/infra/nats_cluster.py: node {name} of the JetStream cluster {cluster}.
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
        return self.alive() and nats_server.healthy(self.monitor_port)

    def meta_leader(self) -> str | None:
        """Which node this one believes leads the cluster's metadata (streams, consumers, placement)."""
        jsz = nats_server.monitor(self.monitor_port, "/jsz") if self.alive() else None
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
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)  # this cluster's alone

    @classmethod
    def start(cls, n: int = 3, *, home: Path | str | None = None, name: str = "lab",
              timeout: float = 60.0) -> "Cluster":
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 9:
            raise CourseError(f"A cluster needs 1 to 9 nodes; got n={n!r}. Use 3 to survive the loss of one.")
        owns_home = home is None
        home = Path(tempfile.mkdtemp(prefix="course-nats-cluster-")) if owns_home else Path(home)
        for attempt in range(3):
            cluster = cls(name, cls._plan(n, home), home, owns_home)
            nats_server.own_token(cluster.urls, cluster.token)
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
        ports = nats_server.free_ports(3 * n)
        nodes = {}
        for i in range(n):
            name = f"n{i + 1}"
            nodes[name] = ClusterNode(name, ports[3 * i], ports[3 * i + 1], ports[3 * i + 2], home / name)
        return nodes

    def _launch(self, node: ClusterNode) -> None:
        secret = self.token
        routes = ", ".join(f"nats-route://route:{secret}@127.0.0.1:{other.route_port}" for other in self.nodes.values())
        self.home.mkdir(parents=True, exist_ok=True)
        self.home.chmod(0o700)
        nats_server.write_private(node.conf_file, CLUSTER_NODE_CONF.format(
            name=node.name, cluster=self.name, port=node.port, monitor_port=node.monitor_port,
            route_port=node.route_port, routes=routes, store_dir=node.folder / "store", token=secret))
        node.process = processes.spawn(f"nats-{self.name}-{node.name}", [str(nats_server.server_binary()), "-c", str(node.conf_file)])

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
        nats_server.own_token(self.urls, None)
        if remove_home and self.owns_home:
            shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
