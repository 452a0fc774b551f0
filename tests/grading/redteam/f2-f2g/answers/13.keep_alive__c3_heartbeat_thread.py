# correct: a heartbeat thread sends in-progress acks every 0.3 s while the pages are drawn
import threading


def render_invoice(task):
    done = threading.Event()

    def beat():
        while not done.wait(0.3):
            task.in_progress()

    beater = threading.Thread(target=beat, daemon=True)
    beater.start()
    try:
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    finally:
        done.set()
        beater.join()
