"""An email provider you can break: a real HTTP service, in its own process, that fails on request.

    POST /emails          {"to", "subject", "body"}, optional header Idempotency-Key
                          200 {"id": ...}  accepted (and "delivered": kept in memory for you to read)
                          503              down, or one of the random failures you asked for: retry later
                          422              an address that cannot exist (no '@', or '@invalid'): never retry
                          409              an Idempotency-Key reused for a different email
    GET  /health
    GET|PATCH /admin/settings, GET /admin/deliveries, GET /admin/requests, GET /admin/stats,
    POST /admin/reset     what the EmailProvider handle below uses

Like the real ones (Stripe, Postmark), the same Idempotency-Key again returns the first answer and
sends nothing new. Like the real ones, a request the client stopped waiting for is still delivered:
a timeout does not mean "not sent".

Start one from Python with `EmailProvider.start(latency_s=0.05, failure_rate=0.2, seed=1)`, or from a
shell with `python -m course.programs.email_provider --port 0`. Workers send with `send_email()`.

Why one module: it is one service, its HTTP side and the EmailProvider handle that starts and steers it;
the handle's methods are the service's admin routes, so a change to one is a change to both.
"""

from __future__ import annotations

import argparse
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace

from course.errors import InvalidArgument
from course.core.queue import PermanentError
from course.programs.http import HttpError, JsonHandler, Reply, Server, ServerProcess, ServiceUnreachable, call, route, serve
from course.programs.http import start_server

DEFAULT_TIMEOUT_S = 10.0

# -- the settings you can change while it runs --------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    latency_s: float = 0.05  # every send waits this long before it is answered...
    jitter_s: float = 0.0  # ...plus a random extra from 0 to jitter_s
    failure_rate: float = 0.0  # the share of sends answered 503 at random (0.2 = one in five)
    seed: int | None = 1  # the same seed gives the same failures in the same order
    down: bool = False  # an outage with no end until you say so
    down_from: float | None = None  # an outage window, in Unix time (time.time()): down from...
    down_until: float | None = None  # ...until; either end may be left open

    def down_at(self, now: float) -> bool:
        if self.down:
            return True
        if self.down_from is None and self.down_until is None:
            return False
        starts = -math.inf if self.down_from is None else self.down_from
        ends = math.inf if self.down_until is None else self.down_until
        return starts <= now < ends


SETTING_NAMES = [f.name for f in fields(Settings)]


def _number(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"{name} must be a number from {low:g} to {high:g}; got {value!r}.")
    return float(value)


def _unix_time(name: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} is a Unix time in seconds (like time.time()) or None; got {value!r}.")
    return float(value)


def changed(settings: Settings, changes: Mapping[str, object]) -> Settings:
    """`settings` with `changes` applied; ValueError naming the first bad one (nothing is changed)."""
    unknown = sorted(set(changes) - set(SETTING_NAMES))
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)}; the settings are: {', '.join(SETTING_NAMES)}.")
    checked = {}
    for name, value in changes.items():
        if name in ("latency_s", "jitter_s"):
            checked[name] = _number(name, value, 0, 600)
        elif name == "failure_rate":
            checked[name] = _number(name, value, 0, 1)
        elif name == "seed":
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"seed must be a whole number or None; got {value!r}.")
            checked[name] = value
        elif name == "down":
            if not isinstance(value, bool):
                raise ValueError(f"down must be true or false; got {value!r}.")
            checked[name] = value
        else:
            checked[name] = _unix_time(name, value)
    result = replace(settings, **checked)
    if result.down_from is not None and result.down_until is not None and result.down_from >= result.down_until:
        raise ValueError(f"down_from ({result.down_from}) must come before down_until ({result.down_until}).")
    return result


# -- what makes an address impossible ------------------------------------------------------------------


def address_problem(to: str) -> str | None:
    """Why no mail server could ever accept `to`, or None. Retrying cannot fix any of these."""
    local, at, domain = to.rpartition("@")
    if not at:
        return f"{to!r} is not an email address: it has no '@' (an address looks like ana@example.com)"
    if not local or not domain or any(c.isspace() for c in to):
        return f"{to!r} is not an email address: it needs a name, one '@' and a domain, and no spaces"
    if domain.lower() == "invalid" or domain.lower().endswith(".invalid"):
        return f"{to!r}: no such mailbox (the domain {domain!r} does not exist)"
    return None


# -- the provider's memory ---------------------------------------------------------------------------


class Mailbox:
    """Everything the provider remembers: settings, deliveries, every request, idempotent answers.

    Handler threads share it; one lock keeps it consistent. Nobody sleeps while holding the lock.
    """

    def __init__(self, settings: Settings):
        self._lock = threading.Lock()
        self._initial = settings
        self.settings = settings
        self._rng = random.Random(settings.seed)
        self.deliveries: list[dict] = []
        self.requests: list[dict] = []
        self._answers: dict[str, tuple[tuple, dict]] = {}  # Idempotency-Key -> (what was sent, first answer)

    def configure(self, changes: Mapping[str, object]) -> Settings:
        with self._lock:
            self.settings = changed(self.settings, changes)
            if "seed" in changes:
                self._rng = random.Random(self.settings.seed)
            return self.settings

    def reset(self, *, settings: bool) -> None:
        """Forget every delivery, request and key, and restart the random sequence from the seed."""
        with self._lock:
            if settings:
                self.settings = self._initial
            self._rng = random.Random(self.settings.seed)
            self.deliveries.clear()
            self.requests.clear()
            self._answers.clear()

    def is_down(self) -> tuple[bool, str | None]:
        """(down?, the Retry-After value in seconds, when the outage has a known end)."""
        now = time.time()
        s = self.settings
        if not s.down_at(now):
            return False, None
        if not s.down and s.down_until is not None:
            return True, str(max(1, math.ceil(s.down_until - now)))
        return True, None

    def latency(self) -> float:
        with self._lock:
            s = self.settings
            return s.latency_s + (self._rng.uniform(0, s.jitter_s) if s.jitter_s else 0.0)

    def unlucky(self) -> bool:
        """Is this send one of the random failures? Drawn in arrival order, from the seeded sequence."""
        with self._lock:
            return self.settings.failure_rate > 0 and self._rng.random() < self.settings.failure_rate

    def deliver(self, email: dict, key: str | None) -> tuple[int, dict, str]:
        """Accept the email once per key: (status, body, outcome). Check and store under one lock, so
        two sends with the same key at the same moment still deliver one email."""
        sent = (email["to"], email["subject"], email["body"])
        with self._lock:
            if key is not None and key in self._answers:
                first_sent, first_answer = self._answers[key]
                if first_sent != sent:
                    return 409, {"error": f"Idempotency-Key {key!r} was already used for a different email "
                                          f"(to {first_sent[0]!r}, subject {first_sent[1]!r}); use a new key "
                                          f"for a new email"}, "conflict"
                return 200, first_answer, "replayed"
            message_id = f"msg_{len(self.deliveries) + 1:06d}"
            self.deliveries.append({"id": message_id, **email, "idempotency_key": key, "at": time.time()})
            body = {"id": message_id, "to": email["to"]}
            if key is not None:
                self._answers[key] = (sent, body)
            return 200, body, "delivered"

    def record(self, *, to: object, key: str | None, status: int, outcome: str, message_id: str | None,
               at: float) -> None:
        with self._lock:
            self.requests.append({"at": at, "to": to, "idempotency_key": key, "status": status,
                                  "outcome": outcome, "message_id": message_id})

    def copy(self, what: str) -> list[dict]:
        """A copy of `deliveries` or `requests`, taken while no one is adding to it."""
        with self._lock:
            return list(getattr(self, what))

    def stats(self) -> dict:
        with self._lock:
            outcomes = Counter(r["outcome"] for r in self.requests)
            statuses = Counter(str(r["status"]) for r in self.requests)
            return {"requests": len(self.requests), "deliveries": len(self.deliveries),
                    "by_outcome": dict(outcomes), "by_status": dict(statuses)}


# -- the HTTP face ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What the provider says to one POST /emails, and how that request is counted."""

    status: int
    body: dict
    outcome: str  # delivered, replayed, down, failed, rejected, conflict, bad_request
    to: str | None = None
    headers: Mapping[str, str] | None = None


def refusal(status: int, message: str, outcome: str, *, to: str | None = None,
            headers: Mapping[str, str] | None = None) -> Answer:
    return Answer(status, {"error": message}, outcome, to, headers)


class ProviderHandler(JsonHandler):
    server: "ProviderServer"

    @route("GET", "/health")
    def health(self):
        return 200, {"ok": True, "requests_in_flight": self.server.in_flight - 1}  # not counting this one

    @route("POST", "/emails")
    def send(self):
        arrived = time.time()
        key = self.headers.get("Idempotency-Key") or None
        answer = self._answer(key)
        self.server.mailbox.record(to=answer.to, key=key, status=answer.status, outcome=answer.outcome,
                                   message_id=answer.body.get("id"), at=arrived)
        headers = dict(answer.headers or {})
        if answer.outcome == "replayed":
            headers["Idempotent-Replayed"] = "true"
        return answer.status, answer.body, headers

    def _answer(self, key: str | None) -> Answer:
        mailbox = self.server.mailbox
        try:
            email, bad_request = _email_fields(self.json_body()), None
        except HttpError as error:
            email, bad_request = None, error.message
        to = email["to"] if email else None
        down, retry_after = mailbox.is_down()
        if down:  # a load balancer in front answers at once: no latency when the service is gone
            return refusal(503, "the email service is down (outage); try again later", "down", to=to,
                           headers={"Retry-After": retry_after} if retry_after else None)
        time.sleep(mailbox.latency())
        if email is None:
            return refusal(400, bad_request, "bad_request")
        problem = address_problem(to)
        if problem:
            return refusal(422, f"rejected: {problem}; sending it again will not help", "rejected", to=to)
        if mailbox.unlucky():
            return refusal(503, "temporarily unavailable (a random failure you configured); try again later",
                           "failed", to=to, headers={"Retry-After": "1"})
        status, body, outcome = mailbox.deliver(email, key)
        return Answer(status, body, outcome, to)

    @route("GET", "/admin/settings")
    def get_settings(self):
        return 200, asdict(self.server.mailbox.settings)

    @route("PATCH", "/admin/settings")
    def change_settings(self):
        try:
            return 200, asdict(self.server.mailbox.configure(self.json_body()))
        except ValueError as error:
            raise HttpError(400, str(error)) from None

    @route("GET", "/admin/deliveries")
    def deliveries(self):
        return 200, {"deliveries": self.server.mailbox.copy("deliveries")}

    @route("GET", "/admin/requests")
    def requests(self):
        return 200, {"requests": self.server.mailbox.copy("requests")}

    @route("GET", "/admin/stats")
    def stats(self):
        return 200, self.server.mailbox.stats()

    @route("POST", "/admin/reset")
    def reset(self):
        restore = self.json_body(optional=True).get("settings", False)
        self.server.mailbox.reset(settings=bool(restore))
        return 200, {"ok": True, "settings": asdict(self.server.mailbox.settings)}


def _email_fields(request: dict) -> dict:
    email = {}
    for field_name in ("to", "subject", "body"):
        value = request.get(field_name)
        if not isinstance(value, str) or (field_name != "body" and not value.strip()):
            raise HttpError(400, f"{field_name!r} must be a non-empty string; got {value!r:.80}. "
                                 'Send {"to": "ana@example.com", "subject": "...", "body": "..."}.')
        email[field_name] = value
    return email


class ProviderServer(Server):
    def __init__(self, port: int, settings: Settings):
        super().__init__(ProviderHandler, port)
        self.mailbox = Mailbox(settings)


# -- the client a worker uses --------------------------------------------------------------------------


class TransientEmailError(Exception):
    """The email was not accepted this time; the same send later may well work. Retry (with backoff)."""


class ProviderUnavailable(TransientEmailError):
    """503 and friends: the provider is down or overloaded."""

    def __init__(self, message: str, status: int, retry_after_s: float | None):
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s


class ProviderTimeout(TransientEmailError):
    """No answer in time. The provider may still deliver it: send again with the same Idempotency-Key."""


class ProviderUnreachable(TransientEmailError):
    """Nothing answered: connection refused or dropped."""


class EmailRejected(PermanentError):
    """A 4xx: this email will never be accepted as it is (bad address, bad request, key reused)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


RETRYABLE_4XX = {408, 425, 429}  # request timeout, too early, too many requests: later may work


def send_email(url: str, to: str, subject: str, body: str, idempotency_key: str | None = None, *,
               timeout: float = DEFAULT_TIMEOUT_S) -> str:
    """Send one email through the provider at `url`; return the provider's message id.

    Raises a TransientEmailError (retry later) or EmailRejected, a PermanentError (do not retry).
    """
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    try:
        reply = call("POST", f"{url.rstrip('/')}/emails", {"to": to, "subject": subject, "body": body},
                     headers=headers, timeout=timeout)
    except TimeoutError:
        raise ProviderTimeout(f"the email provider did not answer within {timeout:g} s; it may still deliver "
                              "this email, so send again with the same Idempotency-Key") from None
    except ServiceUnreachable as error:
        raise ProviderUnreachable(str(error)) from None
    if reply.ok:
        return reply.data["id"]
    raise _error_for(reply, to)


def _error_for(reply: Reply, to: str) -> Exception:
    what = f"email to {to!r}: HTTP {reply.status}: {reply.error}"
    if reply.status >= 500 or reply.status in RETRYABLE_4XX:
        retry_after = reply.headers.get("retry-after", "")
        return ProviderUnavailable(what, reply.status, float(retry_after) if retry_after.isdigit() else None)
    if 400 <= reply.status < 500:
        return EmailRejected(what, reply.status)
    return TransientEmailError(f"email to {to!r}: unexpected HTTP {reply.status}: {reply.error}")


# -- the handle notebooks and checks hold -------------------------------------------------------------


@dataclass(frozen=True)
class Delivery:
    id: str
    to: str
    subject: str
    body: str
    idempotency_key: str | None
    at: float  # Unix time the provider accepted it


@dataclass(frozen=True)
class ProviderRequest:
    at: float  # Unix time it arrived
    to: str | None
    idempotency_key: str | None
    status: int
    outcome: str  # delivered, replayed, down, failed, rejected, conflict, bad_request
    message_id: str | None


class EmailProvider(ServerProcess):
    """The email provider, running in a process of its own.

        provider = EmailProvider.start(latency_s=0.05, failure_rate=0.0, seed=1)
        provider.configure(down=True)          # an outage, from now until configure(down=False)
        provider.deliveries(), provider.requests(), provider.stats()
        provider.stop()
    """

    @classmethod
    def start(cls, *, latency_s: float = 0.05, jitter_s: float = 0.0, failure_rate: float = 0.0,
              seed: int | None = 1, down: bool = False, name: str = "email-provider",
              timeout: float = 120.0) -> "EmailProvider":
        """Start a provider on 127.0.0.1 and a free port; return once it answers."""
        try:
            settings = changed(Settings(), {"latency_s": latency_s, "jitter_s": jitter_s, "seed": seed,
                                            "failure_rate": failure_rate, "down": down})
        except ValueError as error:
            raise InvalidArgument(f"{error} Nothing was started.") from None
        args = ["--port", "0", "--latency", str(settings.latency_s), "--jitter", str(settings.jitter_s),
                "--failure-rate", str(settings.failure_rate)]
        args += ["--seed", str(seed)] if seed is not None else ["--no-seed"]
        args += ["--down"] if down else []
        child, url = start_server(name, "course.programs.email_provider", args, timeout=timeout)
        return cls(url, child)

    @classmethod
    def attach(cls, url: str) -> "EmailProvider":
        """A handle on a provider someone else started (it cannot be killed from here)."""
        return cls(url.rstrip("/"))

    def send(self, to: str, subject: str, body: str, idempotency_key: str | None = None, *,
             timeout: float = DEFAULT_TIMEOUT_S) -> str:
        return send_email(self.url, to, subject, body, idempotency_key, timeout=timeout)

    def configure(self, **settings) -> dict:
        """Change settings now, e.g. configure(failure_rate=0.3) or configure(down=False)."""
        reply = self._admin("PATCH", "settings", settings)
        if reply.status == 400:
            raise InvalidArgument(f"{reply.error} Nothing was changed.")
        return self._checked(reply)

    def settings(self) -> dict:
        return self._checked(self._admin("GET", "settings"))

    def outage(self, seconds: float, *, starting_in: float = 0.0) -> dict:
        """Be down for `seconds`, starting `starting_in` seconds from now; it ends by itself."""
        starts = time.time() + starting_in
        return self.configure(down=False, down_from=starts, down_until=starts + seconds)

    def healthy(self) -> dict:
        """No outage, no random failures (latency stays as it is)."""
        return self.configure(down=False, down_from=None, down_until=None, failure_rate=0.0)

    def deliveries(self) -> list[Delivery]:
        return [Delivery(**d) for d in self._checked(self._admin("GET", "deliveries"))["deliveries"]]

    def requests(self) -> list[ProviderRequest]:
        """Every POST /emails it received, failed ones too, in arrival order."""
        return [ProviderRequest(**r) for r in self._checked(self._admin("GET", "requests"))["requests"]]

    def stats(self) -> dict:
        """{"requests": n, "deliveries": n, "by_outcome": {...}, "by_status": {...}}"""
        return self._checked(self._admin("GET", "stats"))

    def reset(self, *, settings: bool = False) -> None:
        """Forget deliveries, requests and idempotency keys; with settings=True, also the settings."""
        self._checked(self._admin("POST", "reset", {"settings": settings}))

    def _admin(self, method: str, what: str, data: dict | None = None) -> Reply:
        return call(method, f"{self.url}/admin/{what}", data, timeout=10.0)

    def _checked(self, reply: Reply):
        if not reply.ok:
            raise ServiceUnreachable(f"the email provider at {self.url} answered {reply.status}: {reply.error}")
        return reply.data


# -- the program -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.programs.email_provider",
                                     description="An HTTP email provider that fails when you ask it to.")
    parser.add_argument("--port", type=int, default=0, help="0: any free port (the URL is printed)")
    parser.add_argument("--latency", type=float, default=Settings.latency_s, help="seconds per send")
    parser.add_argument("--jitter", type=float, default=0.0, help="random extra seconds, 0 to this")
    parser.add_argument("--failure-rate", type=float, default=0.0, help="share of sends answered 503")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-seed", action="store_true", help="different random failures every run")
    parser.add_argument("--down", action="store_true", help="start in an outage")
    parser.add_argument("--url-file", help="write the URL here once listening")
    args = parser.parse_args(argv)
    try:
        settings = changed(Settings(), {"latency_s": args.latency, "jitter_s": args.jitter,
                                        "failure_rate": args.failure_rate, "down": args.down,
                                        "seed": None if args.no_seed else args.seed})
    except ValueError as error:
        parser.error(str(error))
    server = ProviderServer(args.port, settings)
    return serve(server, name="email provider", url_file=args.url_file)


if __name__ == "__main__":
    raise SystemExit(main())
