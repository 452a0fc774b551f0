import threading
from concurrent.futures import ThreadPoolExecutor


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    booking_id = task.data["booking_id"]
    drawn = threading.Event()

    def heartbeat():
        task.in_progress()
        while not drawn.wait(0.3):
            task.in_progress()

    beat = threading.Thread(target=heartbeat, daemon=True)
    beat.start()
    try:
        # pages are independent: draw up to four at once; list() waits for all and re-raises a page's error
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda page: render_page(booking_id, page), range(task.data["pages"])))
    finally:
        drawn.set()
        beat.join()
