# wrong: in-progress -- a heartbeat thread every 2 s: longer than the 1.2 s AckWait
import threading


def render_invoice(task):
    stop = threading.Event()

    def beat():
        while not stop.wait(2.0):
            task.in_progress()

    t = threading.Thread(target=beat, daemon=True)
    t.start()
    try:
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    finally:
        stop.set()
