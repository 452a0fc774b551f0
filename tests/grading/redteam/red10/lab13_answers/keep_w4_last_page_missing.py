# wrong | render-every-page (last page not drawn)
def render_invoice(task):
    for page in range(task.data["pages"] - 1):
        task.in_progress()
        render_page(task.data["booking_id"], page)
