# wrong: in-progress -- heartbeats only for invoices over 5 pages: a 5-page invoice (2 s) is silent past the 1.2 s AckWait
def render_invoice(task):
    pages = task.data["pages"]
    for page in range(pages):
        render_page(task.data["booking_id"], page)
        if pages > 5:
            task.in_progress()
