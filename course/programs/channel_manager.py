"""StayHub's channel-manager partner (lab 12): the service that tells the hotels' other booking sites a
room is taken. It is slow (~3.6 s a sync), and often slower than StayHub waits: the material's reason the
sync is a job, not part of the checkout.

    ChannelManager.start(...)       the partner in a process of its own; .syncs() lists every update it took,
                                    also those whose caller had already given up; .configure(), .reset()
    python -m course.programs.channel_manager --latency 3.6 --timeout-rate 0.3

StayHub's side of the sync (push_to_channel_manager, its timeout) is course/programs/stayhub.py.
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from dataclasses import dataclass

from course.errors import CourseError, InvalidArgument
from course.programs.http import HttpError, JsonHandler, Reply, Server, ServerProcess, call, route, serve, start_server
from course.programs.stayhub import CHANNEL_S, CHANNEL_TIMEOUT_RATE


@dataclass
class PartnerSettings:
    latency_s: float = CHANNEL_S
    jitter_s: float = 0.2  # each answer takes latency ± jitter
    timeout_rate: float = CHANNEL_TIMEOUT_RATE  # the share of requests it sits on far too long
    hang_s: float = 20.0  # how long it sits on those
    seed: int | None = 1


class ChannelHandler(JsonHandler):
    server: "ChannelServer"

    @route("GET", "/health")
    def health(self):
        return 200, {"ok": True}

    @route("PUT", r"/availability/(?P<booking_id>\d+)")
    def put_availability(self, booking_id: str):
        update = self.json_body()
        time.sleep(self.server.delay())
        self.server.record(int(booking_id), update)  # a client that gave up does not undo this
        return 200, {"booking_id": int(booking_id), "synced": True}

    @route("GET", "/admin/syncs")
    def syncs(self):
        with self.server.lock:
            return 200, {"syncs": [dict(s) for s in self.server.syncs]}

    @route("PATCH", "/admin/settings")
    def change(self):
        changes = self.json_body()
        with self.server.lock:
            for name, value in changes.items():
                if not hasattr(self.server.settings, name):
                    raise HttpError(400, f"unknown setting {name!r}")
                setattr(self.server.settings, name, value)
            if "seed" in changes:
                self.server.rng = random.Random(self.server.settings.seed)
            return 200, vars(self.server.settings)

    @route("POST", "/admin/reset")
    def reset(self):
        with self.server.lock:
            self.server.syncs.clear()
            self.server.rng = random.Random(self.server.settings.seed)
        return 200, {"ok": True}


class ChannelServer(Server):
    def __init__(self, port: int, settings: PartnerSettings):
        super().__init__(ChannelHandler, port)
        self.settings = settings
        self.rng = random.Random(settings.seed)
        self.lock = threading.Lock()
        self.syncs: list[dict] = []

    def delay(self) -> float:
        """This request's wait, drawn in arrival order from the seeded sequence."""
        with self.lock:
            s = self.settings
            hangs = self.rng.random() < s.timeout_rate
            jitter = self.rng.uniform(-s.jitter_s, s.jitter_s)
            return s.hang_s if hangs else max(0.0, s.latency_s + jitter)

    def record(self, booking_id: int, update: dict) -> None:
        with self.lock:
            self.syncs.append({"booking_id": booking_id, "at": time.time(), **update})


class ChannelManager(ServerProcess):
    """The channel-manager partner in a process of its own.

        partner = ChannelManager.start(latency_s=3.6, timeout_rate=0.3, seed=1)
        partner.syncs()          # every update it took, including those whose client had given up
    """

    @classmethod
    def start(cls, *, latency_s: float = CHANNEL_S, jitter_s: float = 0.2, timeout_rate: float = CHANNEL_TIMEOUT_RATE,
              hang_s: float = 20.0, seed: int | None = 1, name: str = "channel-manager",
              timeout: float = 120.0) -> "ChannelManager":
        for label, value, high in (("latency_s", latency_s, 600), ("jitter_s", jitter_s, 600),
                                   ("timeout_rate", timeout_rate, 1), ("hang_s", hang_s, 600)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= high:
                raise InvalidArgument(f"{label} must be a number from 0 to {high}; got {value!r}. Nothing was started.")
        args = ["--port", "0", "--latency", str(latency_s), "--jitter", str(jitter_s),
                "--timeout-rate", str(timeout_rate), "--hang", str(hang_s)]
        args += ["--seed", str(seed)] if seed is not None else []
        child, url = start_server(name, "course.programs.channel_manager", args, timeout=timeout)
        return cls(url, child)

    def syncs(self) -> list[dict]:
        return self._checked(call("GET", f"{self.url}/admin/syncs"))["syncs"]

    def configure(self, **settings) -> dict:
        return self._checked(call("PATCH", f"{self.url}/admin/settings", settings))

    def reset(self) -> None:
        self._checked(call("POST", f"{self.url}/admin/reset"))

    def _checked(self, reply: Reply):
        if not reply.ok:
            raise CourseError(f"the channel manager at {self.url} answered {reply.status}: {reply.error}")
        return reply.data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.programs.channel_manager",
                                     description="StayHub's slow, flaky channel-manager partner.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=CHANNEL_S)
    parser.add_argument("--jitter", type=float, default=0.2)
    parser.add_argument("--timeout-rate", type=float, default=CHANNEL_TIMEOUT_RATE)
    parser.add_argument("--hang", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--url-file")
    args = parser.parse_args(argv)
    settings = PartnerSettings(args.latency, args.jitter, args.timeout_rate, args.hang, args.seed)
    # Requests it sits on would hold up a graceful stop for their whole hang: wait one second for them.
    return serve(ChannelServer(args.port, settings), name="channel manager", url_file=args.url_file,
                 drain_timeout=1.0)


if __name__ == "__main__":
    raise SystemExit(main())
