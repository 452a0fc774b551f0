"""Lab 01's measurement of what customers feel while the checkout renders receipts (course/programs/
checkout_load.py), and the part of a receipt's rendering the checkout spends computing.

Timings are not asserted (they belong to the lab's measurement and to benchmarks); what the code
guarantees is: one answer time per order, every order stored, the CPU part really spent as CPU time,
and arguments refused with a reason."""

from __future__ import annotations

import time

import pytest

from course.errors import InvalidArgument
from course.programs import checkout_load, tiffin
from course.programs.checkout import CheckoutApp
from course.programs.email_provider import EmailProvider


def test_draw_pdf_spends_its_seconds_as_cpu_time_of_the_thread():
    before = time.thread_time()
    tiffin.draw_pdf(0.05)
    assert time.thread_time() - before >= 0.05


def test_a_summary_of_answer_times():
    summary = checkout_load.Summary.of([0.001 * n for n in range(1, 21)])
    assert (summary.orders, summary.median_ms, summary.slowest_ms) == (20, 10.5, 20.0)
    assert 19 <= summary.p95_ms <= 20
    with pytest.raises(ValueError):
        checkout_load.Summary.of([0.1])


@pytest.mark.slow
def test_answer_times_places_every_order_and_times_each_answer(conn, schema):
    tiffin.install(conn)
    with EmailProvider.start(latency_s=0.0) as provider, \
            CheckoutApp.start(schema=schema, provider_url=provider.url, mode="thread", receipt_render_s=0.05,
                              receipt_cpu_s=0.02, install=False) as app:
        times = checkout_load.answer_times(app, orders=6, per_second=30)
    assert len(times) == 6 and all(t > 0 for t in times)
    assert conn.execute("SELECT count(*) FROM orders").fetchone()[0] == 6


@pytest.mark.slow
def test_the_checkout_refuses_a_cpu_part_longer_than_the_rendering(schema):
    with pytest.raises(InvalidArgument, match="receipt_cpu_s"):
        CheckoutApp.start(schema=schema, provider_url="http://127.0.0.1:9", receipt_render_s=0.1, receipt_cpu_s=0.5)


def test_answer_times_refuses_a_rate_of_zero():
    with pytest.raises(InvalidArgument):
        checkout_load.answer_times(object(), orders=3, per_second=0)
