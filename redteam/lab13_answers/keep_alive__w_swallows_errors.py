# rule: render-every-page (a page that fails is skipped and the message acked: no retry)
def render_invoice(task):
    for page in range(task.data["pages"]):
        try:
            render_page(task.data["booking_id"], page)
        except Exception:
            pass
        task.in_progress()
