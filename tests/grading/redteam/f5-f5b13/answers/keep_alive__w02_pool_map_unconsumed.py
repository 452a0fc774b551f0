from concurrent.futures import ThreadPoolExecutor


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    booking_id = task.data["booking_id"]
    task.in_progress()
    # pages are independent: draw them side by side, the invoice is done in one page's time
    with ThreadPoolExecutor(max_workers=4) as pool:
        pool.map(lambda page: render_page(booking_id, page), range(task.data["pages"]))
        task.in_progress()
