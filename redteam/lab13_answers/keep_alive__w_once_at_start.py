# rule: in-progress (one in-progress ack at the start, then 2.4 s silent)
def render_invoice(task):
    task.in_progress()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
