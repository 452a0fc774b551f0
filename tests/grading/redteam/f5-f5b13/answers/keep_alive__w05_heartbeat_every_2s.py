import threading


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    done = threading.Event()

    def heartbeat():
        while not done.wait(2.0):  # the AckWait of section 2
            task.in_progress()

    beat = threading.Thread(target=heartbeat, daemon=True)
    beat.start()
    try:
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    finally:
        done.set()
        beat.join()
