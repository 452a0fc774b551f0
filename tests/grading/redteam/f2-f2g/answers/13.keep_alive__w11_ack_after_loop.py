# wrong: in-progress -- the in-progress ack is sent once, after the last page: too late
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
    task.in_progress()
