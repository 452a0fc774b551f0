"""Does an async render_invoice (answers/keep_alive__c04_async_to_thread.py) keep a 6-page invoice
on a 1.2 s AckWait in the course's own consumer processes? (The check calls it without awaiting it.)

    .venv/bin/python tests/grading/redteam/f5-f5b13/demo_keep_alive_async.py
"""
import asyncio
import time

from course.infra import nats_cluster
from course.programs import jetstream_queue as jq
from course.programs import jetstream_run

PAGE_S = 0.4


def render_page(booking_id, page):
    time.sleep(PAGE_S)


async def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        await asyncio.to_thread(render_page, task.data["booking_id"], page)


def render_invoice_silently(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)


if __name__ == "__main__":
    cluster = nats_cluster.Cluster.start(3)
    try:
        for handler in (render_invoice, render_invoice_silently):
            queue = jq.WorkQueue(f"DEMO{handler.__name__.upper()[-4:]}", replicas=3, ack_wait_s=1.2, max_deliver=5)
            jq.reset(queue, cluster.urls)
            history = jq.new_history()
            consumers = jetstream_run.spawn_consumers(queue, handler, cluster.urls, 2, history=history)
            with jq.Publisher(cluster.urls) as publisher:
                publisher.publish(queue.subject("render"), {"booking_id": 981, "pages": 6}, msg_id="booking-981")
            jq.wait_settled(history, ["booking-981"], timeout=60, children=consumers)
            time.sleep(1.5)
            outcome = jq.Outcome.of(jq.read_history(history))
            print(f"{handler.__name__}: deliveries {outcome.deliveries['booking-981']}, "
                  f"executions {outcome.executions['booking-981']}, acked {'booking-981' in outcome.acked}")
            for child in consumers:
                child.terminate()
    finally:
        cluster.stop()
