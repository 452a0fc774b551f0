import asyncio


async def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    # an async handler runs on the consumer's loop: draw each page in a thread so the loop stays free
    for page in range(task.data["pages"]):
        task.in_progress()
        await asyncio.to_thread(render_page, task.data["booking_id"], page)
