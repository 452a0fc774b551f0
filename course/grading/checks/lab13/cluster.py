"""The private three-node NATS cluster lab 13's checks run on: started per check, always stopped."""

from __future__ import annotations

from contextlib import contextmanager

from course.infra import nats_cluster


@contextmanager
def cluster_for_check():
    """A private three-node cluster, stopped whatever happens in the check."""
    cluster = nats_cluster.Cluster.start(3)
    try:
        yield cluster
    finally:
        cluster.stop()
