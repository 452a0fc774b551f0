# wrong: render-every-page -- stops at 10 pages (a "cap" nobody asked for): long invoices lose pages
def render_invoice(task):
    for page in range(min(task.data["pages"], 10)):
        task.in_progress()
        render_page(task.data["booking_id"], page)
