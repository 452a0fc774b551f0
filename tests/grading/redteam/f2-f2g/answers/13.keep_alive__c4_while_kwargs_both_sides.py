# correct: a while loop, keyword arguments, an ack before and after each page
def render_invoice(task):
    page = 0
    total = int(task.data["pages"])
    while page < total:
        task.in_progress()
        render_page(booking_id=task.data["booking_id"], page=page)
        task.in_progress()
        page += 1
