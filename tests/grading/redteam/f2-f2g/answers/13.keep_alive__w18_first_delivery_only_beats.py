# wrong: in-progress -- heartbeats only on the first delivery ("a redelivery is short anyway")
def render_invoice(task):
    for page in range(task.data["pages"]):
        if task.deliveries == 1:
            task.in_progress()
        render_page(task.data["booking_id"], page)
