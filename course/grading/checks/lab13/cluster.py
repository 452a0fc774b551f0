"""The private three-node NATS cluster lab 13's checks run on: started per check, always stopped.

Its servers ask for a token of their own, made for the check (not the checkout's, which every course server
on the machine asks for): 13.keep_alive hands the token to its consumer processes, which run the learner's
handler, and a handler could send it anywhere (hostile3, attack 7). While the check runs, this process's
`nats_server.token()` is that token, so the check's own clients and the consumers it starts use it.
"""

from __future__ import annotations

import secrets
from contextlib import contextmanager

from course.infra import nats_cluster, nats_server, processes


@contextmanager
def cluster_for_check():
    """A private three-node cluster, stopped whatever happens in the check."""
    with processes.environment({nats_server.TOKEN_ENV: secrets.token_urlsafe(32)}):
        cluster = nats_cluster.Cluster.start(3)
        try:
            yield cluster
        finally:
            cluster.stop()
