# wrong: in-progress -- an ack every 4 pages: 1.6 s silent stretches, longer than the 1.2 s AckWait
def render_invoice(task):
    for page in range(task.data["pages"]):
        if page % 4 == 0:
            task.in_progress()
        render_page(task.data["booking_id"], page)
