# expect: wrong
# rule: raise-on-refusal (retries the send itself three times before giving up quietly)
def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    for attempt in range(3):
        try:
            send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
            return
        except Exception:
            time.sleep(0.2 * (attempt + 1))
