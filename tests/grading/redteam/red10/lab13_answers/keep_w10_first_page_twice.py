# wrong | render-every-page (a page drawn twice: retry on error by hand)
def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except Exception:
            task.in_progress()
            render_page(task.data["booking_id"], page)
