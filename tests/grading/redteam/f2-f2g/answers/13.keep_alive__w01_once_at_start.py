# wrong: in-progress -- one in-progress ack at the start only (hint 2: once is not enough)
def render_invoice(task):
    task.in_progress()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
