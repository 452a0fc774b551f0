import threading

MAX_BEATS = 8  # 8 x 0.3 s: an invoice that takes longer than that is stuck, let JetStream take it back


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    done = threading.Event()

    def beat():
        for _ in range(MAX_BEATS):
            task.in_progress()
            if done.wait(0.3):
                return

    threading.Thread(target=beat, daemon=True).start()
    try:
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    finally:
        done.set()
