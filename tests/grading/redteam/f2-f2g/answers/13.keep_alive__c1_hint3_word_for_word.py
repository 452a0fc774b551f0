# correct: hint 3's final step, word for word
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        task.in_progress()
