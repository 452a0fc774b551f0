"""Lab 09: priorities in one queue, while urgent work keeps coming — the newsletter stops, measured.

With the newsletter at a priority below the confirmations', a worker never takes a newsletter job while
a confirmation is waiting. That is the fix for one confirmation behind 48,000 emails; during a flash
sale, when confirmations arrive faster than the workers finish them, it is also why the newsletter does
not slow down but stops.

    sale = flash_sale.run("lab09", bulk_jobs=400, confirmations_per_s=48, sale_s=2.5)
    sale.rate("before"), sale.rate("sale"), sale.rate("after")    # newsletter jobs started per second

The workers and the jobs are lab 09's (course/programs/newsletter.py): two worker processes, one job at a
time each, 0.05 s a job (about 40 jobs a second together), every start written to the `runs` table.
Confirmations are enqueued in small bursts (every `BURST_EVERY_S`), each burst more than the workers
finish before the next, so that a confirmation is always waiting while the sale lasts.
"""

from __future__ import annotations

import math
import secrets
import time
from dataclasses import dataclass

from course.core import queue
from course.errors import InvalidArgument
from course.infra import db
from course.programs import newsletter, pools

BURST_EVERY_S = 0.25


@dataclass(frozen=True)
class FlashSale:
    """Times in seconds from the newsletter's enqueue (the database's clock)."""

    sale: tuple[float, float]  # the first and the last confirmation's enqueue
    sale_done: float  # the last confirmation started: no confirmation waits after this
    newsletter_starts: list[float]
    confirmation_starts: list[float]
    end: float
    newsletter_claims: list[float]  # when each newsletter job was claimed
    confirmations: list[tuple[float, float]]  # (visible to claims from, claimed) for each confirmation

    def claimed_while_waiting(self, at_least: int = 2) -> int:
        """Newsletter jobs claimed while `at_least` confirmations were visible and unclaimed. With two
        workers taking one job at a time, one waiting confirmation may be locked by the other worker's
        claim (SKIP LOCKED passes it over); two cannot both be: the claim's ORDER BY takes one first."""
        return sum(sum(visible < t < claimed for visible, claimed in self.confirmations) >= at_least
                   for t in self.newsletter_claims)

    def windows(self) -> dict[str, tuple[float, float]]:
        """'before' the sale, the 'sale' while confirmations waited, and 'after' it, up to the end."""
        return {"before": (0.0, self.sale[0]), "sale": (self.sale[0], self.sale_done), "after": (self.sale_done, self.end)}

    def started(self, window: str) -> int:
        start, end = self.windows()[window]
        return sum(start <= t < end for t in self.newsletter_starts)

    def rate(self, window: str) -> float:
        """Newsletter jobs started per second in a window."""
        start, end = self.windows()[window]
        return self.started(window) / (end - start) if end > start else math.nan


def run(schema: str, *, bulk_jobs: int = 400, confirmations_per_s: float = 48.0, sale_begins_s: float = 1.5,
        sale_s: float = 2.5, after_s: float = 1.5, service_s: float = newsletter.SERVICE_S,
        timeout_s: float = 60.0) -> FlashSale:
    """The newsletter at priority -10 in one queue, two workers; after `sale_begins_s`, confirmations at
    `confirmations_per_s` for `sale_s`; watch until `after_s` past the last confirmation's start."""
    if not confirmations_per_s > 0 or not sale_s > 0:
        raise InvalidArgument(f"confirmations_per_s and sale_s must be more than 0; got {confirmations_per_s!r}, "
                              f"{sale_s!r}.")
    per_burst = max(1, round(confirmations_per_s * BURST_EVERY_S))
    bursts = max(1, round(sale_s / BURST_EVERY_S))
    with db.connect(schema) as conn:
        newsletter.install(conn)
        conn.execute("TRUNCATE jobs, runs")
        pool = pools.start(newsletter.APP, schema=schema, queues=("default", "default"),
                           env={newsletter.SERVICE_ENV: str(service_s)},
                           prefix=f"flash-{secrets.token_hex(2)}")  # application_name keeps 63 bytes
        try:
            queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in range(1, bulk_jobs + 1)],
                               priority=newsletter.NEWSLETTER_PRIORITY)
            [began] = conn.execute("SELECT clock_timestamp()").fetchone()
            time.sleep(sale_begins_s)
            booking, visible_from = 981, {}
            for burst in range(bursts):
                ids = queue.enqueue_many(conn, "send_confirmation_email",
                                         [{"booking_id": booking + n} for n in range(per_burst)])
                # enqueue_many has returned: committed, so every claim that begins from now on sees them
                [now] = conn.execute("SELECT extract(epoch FROM clock_timestamp() - %s)::float8", [began]).fetchone()
                visible_from.update(dict.fromkeys(ids, now))
                booking += per_burst
                time.sleep(BURST_EVERY_S)
            _wait_for_confirmations(conn, bursts * per_burst, timeout_s)
            time.sleep(after_s)
        finally:
            pool.stop()
        rows = conn.execute("SELECT type, job_id, extract(epoch FROM enqueued_at - %(t)s)::float8, "
                            "extract(epoch FROM claimed_at - %(t)s)::float8, extract(epoch FROM started_at - %(t)s)::float8 "
                            "FROM runs", {"t": began}).fetchall()
        [end] = conn.execute("SELECT extract(epoch FROM clock_timestamp() - %s)::float8", [began]).fetchone()
    confirmations = [row for row in rows if row[0] == "send_confirmation_email"]
    bulk = [row for row in rows if row[0] == "send_newsletter"]
    return FlashSale(sale=(min(r[2] for r in confirmations), max(r[2] for r in confirmations)),
                     sale_done=max(r[4] for r in confirmations),
                     newsletter_starts=sorted(r[4] for r in bulk),
                     confirmation_starts=sorted(r[4] for r in confirmations), end=end,
                     newsletter_claims=sorted(r[3] for r in bulk),
                     confirmations=[(visible_from[r[1]], r[3]) for r in confirmations])


def _wait_for_confirmations(conn, count: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while conn.execute("SELECT count(*) FROM runs WHERE type = 'send_confirmation_email'").fetchone()[0] < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the {count} confirmations had not all started after {timeout_s:g} s "
                               "(are the workers alive?)")
        time.sleep(0.05)


def plot(sale: FlashSale, ax=None, width_s: float = 0.25):
    """Jobs started per second, newsletter and confirmations, with the flash sale shaded."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3))
    bins = [n * width_s for n in range(int(sale.end / width_s) + 1)]
    for starts, label, colour in ((sale.newsletter_starts, "newsletter jobs started", "tab:gray"),
                                  (sale.confirmation_starts, "confirmations started", "tab:blue")):
        counts = [sum(b <= t < b + width_s for t in starts) / width_s for b in bins]
        ax.step(bins, counts, where="post", label=label, color=colour)
    ax.axvspan(sale.sale[0], sale.sale_done, color="tab:red", alpha=0.08, label="confirmations waiting")
    ax.set_xlabel("seconds since the newsletter was enqueued")
    ax.set_ylabel("jobs started per second")
    ax.set_title("Priorities in one queue during a flash sale: the newsletter stops")
    ax.legend(fontsize="small", loc="upper right")
    return ax
