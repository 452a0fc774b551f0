# wrong | render-every-page (a page that raises is swallowed)
def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except Exception as error:
            print(f"page {page} failed: {error}")
