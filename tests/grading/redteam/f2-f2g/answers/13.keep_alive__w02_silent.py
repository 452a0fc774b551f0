# wrong: in-progress -- never tells JetStream anything
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
