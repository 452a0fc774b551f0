# wrong: render-every-page -- a page that raises is retried once, then skipped silently
def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except Exception:
            try:
                render_page(task.data["booking_id"], page)
            except Exception:
                pass
