"""Lab 13's pictures of a JetStream queue: the cluster at a glance (a table a notebook widget
refreshes) and a history drawn (each delivery of each message; publishes around a kill).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


from course.infra import broker, nats_cluster
from course.infra.broker import TRANSIENT
from course.errors import BrokerUnavailable, StreamNotFound
from course.programs.jetstream_queue import Event


@dataclass(frozen=True)
class NodeRow:
    node: str
    up: bool
    role: str  # leader, follower, catching up, down, electing
    pid: int | None


def cluster_rows(cluster: nats_cluster.Cluster, stream: str) -> list[NodeRow]:
    """Each node of the cluster, and its part in `stream` right now."""
    try:
        info = broker.stream_info(stream, url=cluster.live_urls, timeout=1.0).cluster
    except (*TRANSIENT, StreamNotFound, BrokerUnavailable):
        info = None
    peers = {peer.name: peer for peer in (info.replicas or [])} if info else {}
    rows = []
    for name, node in cluster.nodes.items():
        up = node.alive()
        if not up:
            role = "down"
        elif info is None or not info.leader:
            role = "electing"
        elif info.leader == name:
            role = "leader"
        elif name in peers and not peers[name].current:
            role = "catching up"
        else:
            role = "follower"
        rows.append(NodeRow(name, up, role, node.pid if up else None))
    return rows


def cluster_html(rows: Sequence[NodeRow], extra: str = "") -> str:
    colours = {"leader": "#1b7f3b", "follower": "#333", "catching up": "#b26b00", "down": "#b00020",
               "electing": "#b26b00"}
    cells = "".join(f"<tr><td><b>{r.node}</b></td><td style='color:{colours[r.role]}'>{r.role}</td>"
                    f"<td>{r.pid or ''}</td></tr>" for r in rows)
    return (f"<table><tr><th>node</th><th>role in the stream</th><th>pid</th></tr>{cells}</table>"
            + (f"<p>{extra}</p>" if extra else ""))


# -- figures -----------------------------------------------------------------------------------------


def plot_deliveries(events: Sequence[Event], *, ack_wait_s: float | None = None, title: str = "", ax=None):
    """Each delivery as a bar, from when a consumer received it to when its handler ended, one row per
    consumer process: two bars over the same stretch of time are the same job running twice."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 2.4))
    t0 = min((e.t for e in events if e.kind == "received"), default=0.0)
    end = max((e.t for e in events), default=t0)
    rows = sorted({e.who for e in events if e.kind == "received"})
    open_runs: dict[tuple[int, str], Event] = {}
    for e in events:
        key = (e.pid, e.msg_id)
        if e.kind == "received":
            open_runs[key] = e
        elif e.kind in ("finished", "failed") and key in open_runs:
            start = open_runs.pop(key)
            _bar(ax, rows.index(e.who), start.t - t0, e.t - start.t, start.deliveries, e.kind == "failed")
    for start in open_runs.values():  # never finished: killed, or still hanging
        _bar(ax, rows.index(start.who), start.t - t0, end - start.t, start.deliveries, True, hatch="//")
    if ack_wait_s:
        ax.axvline(ack_wait_s, color="#b00020", linestyle="--", linewidth=1, label=f"AckWait ({ack_wait_s:g} s)")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("seconds since the first delivery")
    ax.set_ylabel("consumer process")
    ax.set_title(title or "Deliveries: one bar per handler run")
    ax.set_xlim(left=0)
    return ax


def _bar(ax, row: int, start: float, width: float, delivery: int | None, failed: bool, hatch: str | None = None):
    ax.barh(row, max(width, 0.02), left=start, height=0.5, color="#d9a0a0" if failed else "#8fb8de",
            edgecolor="#333", hatch=hatch)
    ax.text(start + 0.03, row, f"delivery {delivery}", va="center", fontsize=8)


def plot_publishes(events: Sequence[Event], killed_at: float, *, bucket_s: float = 0.25, title: str = "", ax=None):
    """Acknowledged publishes per `bucket_s`, with the moment the leader was killed: the gap is the failover."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 2.6))
    times = [e.t for e in events if e.kind == "published"]
    failures = [e.t for e in events if e.kind == "publish_failed"]
    t0 = min(times + failures, default=killed_at)
    end = max(times + failures, default=killed_at) - t0
    bins = [i * bucket_s for i in range(int(end / bucket_s) + 2)]
    ax.hist([t - t0 for t in times], bins=bins, color="#8fb8de", edgecolor="#333", label="acknowledged publishes")
    if failures:
        ax.plot([t - t0 for t in failures], [0.5] * len(failures), "x", color="#b00020", label="failed attempts")
    ax.axvline(killed_at - t0, color="#b00020", linestyle="--", linewidth=1, label="leader SIGKILLed")
    ax.set_xlabel("seconds since the producer started")
    ax.set_ylabel(f"publishes per {bucket_s:g} s")
    ax.set_title(title or "A producer through a leader failover")
    ax.legend(fontsize=8)
    return ax
