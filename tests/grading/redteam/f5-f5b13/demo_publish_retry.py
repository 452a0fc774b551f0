"""Show, without the check, what the publish_retry answers that passed do wrong (a learner's own test).

    .venv/bin/python tests/grading/redteam/f5-f5b13/demo_publish_retry.py
"""
import time
from pathlib import Path

from course.infra.broker import TRANSIENT

HERE = Path(__file__).resolve().parent


def load(stem):
    space = {"time": time, "TRANSIENT": TRANSIENT}
    exec((HERE / "answers" / f"{stem}.py").read_text(), space)
    return space["publish_with_retry"]


class FailingWith:
    """A publish that always fails at once with the given error."""

    def __init__(self, error):
        self.error, self.times = error, []

    def __call__(self, subject, payload, msg_id=None):
        self.times.append(time.monotonic())
        raise self.error(f"attempt {len(self.times)}")


class Failing:
    """A publish that always fails, each attempt taking `attempt_s` (a timeout takes the publish timeout)."""

    def __init__(self, attempt_s=0.0):
        self.attempt_s, self.times = attempt_s, []

    def __call__(self, subject, payload, msg_id=None):
        self.times.append(time.monotonic())
        time.sleep(self.attempt_s)
        raise TimeoutError(f"attempt {len(self.times)}")


def gives_up_after(stem, give_up, attempt_s):
    fn, publish = load(stem), Failing(attempt_s)
    began = time.monotonic()
    try:
        fn(publish, "s", b"", "id-1", give_up_after_s=give_up)
    except TRANSIENT:
        pass
    return time.monotonic() - began, len(publish.times)


def pauses(stem, calls=2, give_up=2.0):
    fn, out = load(stem), []
    for _ in range(calls):
        publish = Failing()
        try:
            fn(publish, "s", b"", "id-1", give_up_after_s=give_up)
        except TRANSIENT:
            pass
        t = publish.times
        out.append([round(b - a, 2) for a, b in zip(t, t[1:])][:7])
    return out


def first_pauses(stem, error, give_up=2.0):
    fn, publish = load(stem), FailingWith(error)
    try:
        fn(publish, "s", b"", "id-1", give_up_after_s=give_up)
    except TRANSIENT:
        pass
    t = publish.times
    return [round(b - a, 2) for a, b in zip(t, t[1:])][:7], len(t)


class Alternating:
    """A publish that fails at once, alternating a lost connection and "no leader"."""

    def __init__(self):
        self.times = []

    def __call__(self, subject, payload, msg_id=None):
        self.times.append(time.monotonic())
        if len(self.times) % 2:
            raise ConnectionResetError(f"attempt {len(self.times)}")
        raise TimeoutError(f"attempt {len(self.times)}: no leader")


def outcome(stem, publish, give_up):
    fn = load(stem)
    try:
        return f"returned {fn(publish, 's', b'', 'id-1', give_up_after_s=give_up)!r}"
    except TRANSIENT as error:
        return f"raised {error!r}"


class Stream:
    """A stream with a duplicate window: what a second outbox relay meets after the first died (section 5)."""

    def __init__(self):
        self.stored = {}

    def __call__(self, subject, payload, msg_id=None):
        from types import SimpleNamespace
        duplicate = msg_id in self.stored
        self.stored.setdefault(msg_id, payload)
        return SimpleNamespace(seq=len(self.stored), duplicate=duplicate)


if __name__ == "__main__":
    for stem in ("publish_retry__c01_remaining_sleep", "publish_retry__w21_duplicate_republished_fresh"):
        stream, fn = Stream(), load(stem)
        for relay in (1, 2):  # the first relay died before marking its rows sent: the second publishes them again
            for event in range(4):
                fn(stream, "orders.placed", {"order_id": event}, f"event-{event}", give_up_after_s=1.0)
        print(f"{stem}: 4 events published by two relays: {len(stream.stored)} messages stored")
    for stem in ("publish_retry__c01_remaining_sleep", "publish_retry__w18_backoff_per_error_kind"):
        publish = Alternating()
        outcome(stem, publish, 2.0)
        t = publish.times
        print(f"{stem}: alternating errors for 2 s: {len(t)} attempts, pauses {[round(b - a, 2) for a, b in zip(t, t[1:])][:6]}")
    for stem in ("publish_retry__c01_remaining_sleep", "publish_retry__w19_gone_connection_returns_none"):
        print(f"{stem}: connection reset on every attempt, give_up_after_s=0.5: {outcome(stem, FailingWith(ConnectionResetError), 0.5)}")
    for stem in ("publish_retry__c01_remaining_sleep", "publish_retry__w17_zero_means_forever"):
        publish = FailingWith(TimeoutError)
        fn = load(stem)
        import threading
        result = []
        worker = threading.Thread(target=lambda: result.append(outcome(stem, publish, 0)), daemon=True)
        worker.start()
        worker.join(3.0)
        print(f"{stem}: give_up_after_s=0: {'still retrying after 3 s, ' + str(len(publish.times)) + ' attempts' if worker.is_alive() else result[0]}")
    for stem in ("publish_retry__c01_remaining_sleep", "publish_retry__w12_no_pause_after_timeout",
                 "publish_retry__w13_quick_retries_first"):
        for error in (TimeoutError, ConnectionResetError):
            print(f"{stem}: publish raising {error.__name__} at once: pauses {first_pauses(stem, error)[0]}, "
                  f"attempts in 2 s: {first_pauses(stem, error)[1]}")
    for stem in ("publish_retry__c01_remaining_sleep", "publish_retry__w14_capped_give_up",
                 "publish_retry__w16_max_attempts"):
        took, attempts = gives_up_after(stem, 20.0, 0.0)
        print(f"{stem}: give_up_after_s=20, attempts failing at once: gave up after {took:.1f} s, {attempts} attempts")
    for stem in ("publish_retry__c01_remaining_sleep", "publish_retry__w02_sum_of_pauses",
                 "publish_retry__w09_attempt_budget", "publish_retry__w07_deadline_from_first_failure"):
        took, attempts = gives_up_after(stem, 3.0, 1.0)
        print(f"{stem}: give_up_after_s=3, each failing attempt 1 s: gave up after {took:.1f} s, {attempts} attempts")
    for stem in ("publish_retry__c01_remaining_sleep", "publish_retry__w06_global_pause",
                 "publish_retry__w08_linear_backoff"):
        print(f"{stem}: pauses, first call then second call: {pauses(stem)}")
