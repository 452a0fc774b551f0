# wrong (render-every-page): at most 20 pages drawn (adversarial: above any likely test)
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(min(task.data["pages"], 20)):
        task.in_progress()
        render_page(task.data["booking_id"], page)
