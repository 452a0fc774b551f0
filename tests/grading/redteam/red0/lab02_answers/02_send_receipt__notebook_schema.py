# expect: wrong
# rule: only-job-and-conn (opens its own connection on the notebook's schema "lab02")
def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    with db.connect("lab02") as mine:
        details = tiffin.receipt_details(mine, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
