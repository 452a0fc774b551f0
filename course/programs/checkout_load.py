"""Lab 01: what the customers feel when the checkout also renders receipts — "it competes with
customers", measured.

A rush of orders goes through the checkout's HTTP API at a steady pace, and each answer is timed from
the request to the reply. Run it against a checkout in thread mode whose receipts spend part of their
rendering computing (`CheckoutApp.start(..., receipt_cpu_s=0.06)`: drawing the PDF), and against one in
queue mode (the receipt is a job, rendered by a worker process elsewhere), and compare:

    times = checkout_load.answer_times(app, orders=33, per_second=11)
    checkout_load.Summary.of(times).median_ms

In one Python process only one thread runs Python at a time. A request that arrives while receipt
threads are drawing PDFs waits for them; a checkout that only stores a job does not.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from course.core import arguments


def answer_times(app, *, orders: int, per_second: float, customers: int = 5) -> list[float]:
    """Place `orders` orders through `app` (customers 1 to `customers` in turn), order n at n / per_second
    seconds, so that a slow answer does not slow the stream; return each answer's seconds, in order."""
    orders = arguments.whole("orders", orders, "how many orders to place, e.g. 33")
    per_second = arguments.positive("per_second", per_second, "orders a second, e.g. 11")
    times = []
    start = time.monotonic()
    for n in range(orders):
        time.sleep(max(0.0, start + n / per_second - time.monotonic()))
        began = time.perf_counter()
        app.place_order(1 + n % customers, total_cents=1150 + 10 * n)
        times.append(time.perf_counter() - began)
    return times


@dataclass(frozen=True)
class Summary:
    orders: int
    median_ms: float
    p95_ms: float
    slowest_ms: float

    @classmethod
    def of(cls, times: list[float]) -> "Summary":
        if len(times) < 2:
            raise ValueError(f"a summary needs at least two answer times; got {len(times)}")
        ms = sorted(t * 1000 for t in times)
        p95 = statistics.quantiles(ms, n=20, method="inclusive")[18]
        return cls(len(ms), statistics.median(ms), p95, ms[-1])

    def line(self, label: str) -> str:
        return (f"{label:<34} median {self.median_ms:6.1f} ms   95th percentile {self.p95_ms:6.1f} ms   "
                f"slowest {self.slowest_ms:6.1f} ms")
