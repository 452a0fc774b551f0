"""The private three-node NATS cluster lab 13's checks run on: started per check, always stopped.

Its servers ask for a token of their own (nats_cluster.Cluster.token), not the checkout's, which every
course server on the machine asks for: 13.keep_alive hands that token to its consumer processes, which run
the learner's handler, and a handler could send it anywhere (hostile3, attack 7): what it learns opens
this cluster alone, for as long as the check runs.
"""

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
