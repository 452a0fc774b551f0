# rule: in-progress / once (heartbeat thread outlives the handler: keeps +WPI-ing an acked message; and the first 1.3 s silent)
import threading, time
def render_invoice(task):
    def beat():
        while True:
            time.sleep(1.3)
            try:
                task.in_progress()
            except Exception:
                return
    threading.Thread(target=beat, daemon=True).start()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
