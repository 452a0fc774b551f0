# wrong | render-every-page (6 pages hard-coded: the check's invoice)
def render_invoice(task):
    for page in range(6):
        task.in_progress()
        render_page(task.data["booking_id"], page)
