# rule: in-progress (sends a burst of in-progress acks up front, as many as pages, then works silently)
def render_invoice(task):
    for _ in range(task.data["pages"]):
        task.in_progress()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
