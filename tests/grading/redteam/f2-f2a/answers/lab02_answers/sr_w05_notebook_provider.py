# exercise: 02.send_receipt
# kind: wrong
# rule: only-job-and-conn (uses the notebook's `provider` variable for the URL)
def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    send_email(provider.url, receipt.to, receipt.subject, receipt.body)
