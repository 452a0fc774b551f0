# wrong: render-every-page -- a page that raises is skipped: the function returns, the message is acked
def render_invoice(task):
    for page in range(task.data["pages"]):
        try:
            render_page(task.data["booking_id"], page)
        except Exception:
            continue
        finally:
            task.in_progress()
