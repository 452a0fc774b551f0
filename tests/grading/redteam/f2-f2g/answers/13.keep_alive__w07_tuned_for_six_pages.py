# wrong: in-progress -- acks on pages 2 and 4 only: fine for the 6-page invoice, silent 1.6 s+ beyond 6 pages
def render_invoice(task):
    for page in range(task.data["pages"]):
        if page in (2, 4):
            task.in_progress()
        render_page(task.data["booking_id"], page)
