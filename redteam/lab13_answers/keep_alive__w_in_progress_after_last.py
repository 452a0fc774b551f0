# rule: in-progress (the only in-progress ack comes after all the work)
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
    task.in_progress()
