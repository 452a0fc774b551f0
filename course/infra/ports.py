"""The TCP ports our servers may take, when a grader confines them to a few.

In class grading a notebook's sandbox may reach (and serve on) only the ports of one block, chosen for
it: the servers its checks start (the email provider, a checkout app, a NATS cluster) take their ports
from that block, so the notebook's code reaches them and nothing else on 127.0.0.1 — not another
notebook's servers, not the course's broker. The block is named in COURSE_SERVER_PORTS; without it a
server takes any free port, as everywhere else.

    block = ports.reserve_block()          # the grader: a block free now, named in the checks' environment
    ports.allowed()                        # a server: the ports it may take, or None for any
"""

from __future__ import annotations

import os
import random
import socket

ENV = "COURSE_SERVER_PORTS"
BLOCK = 32  # a NATS cluster of three takes nine; a provider and an app two more
# Below the kernel's ephemeral range (32768 and up on Linux), as nats_server's ports: a port from that
# range can be handed to an outgoing connection meanwhile.
RANGE = range(20000, 32000)


def allowed() -> list[int] | None:
    """The ports servers must take here (COURSE_SERVER_PORTS), or None when any will do."""
    named = os.environ.get(ENV, "").strip()
    if not named:
        return None
    return [int(port) for port in named.split(",") if port.strip().isdigit()]


def is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as our servers do: TIME_WAIT is fine
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def reserve_block(size: int = BLOCK) -> list[int]:
    """`size` consecutive ports, at a random aligned place in RANGE, all free now. Nothing holds them: two
    graders on one machine may pick the same block (one chance in ~370 a pair of notebooks)."""
    starts = list(range(RANGE.start, RANGE.stop - size + 1, size))
    for start in random.Random().sample(starts, len(starts)):
        block = list(range(start, start + size))
        if all(is_free(port) for port in block):
            return block
    raise OSError(f"no {size} consecutive free ports between {RANGE.start} and {RANGE.stop} on 127.0.0.1")


def named(ports: list[int]) -> str:
    """The value of COURSE_SERVER_PORTS for these ports."""
    return ",".join(str(port) for port in ports)
