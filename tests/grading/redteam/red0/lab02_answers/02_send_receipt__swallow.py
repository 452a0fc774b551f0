# expect: wrong
# rule: raise-on-refusal (catches the provider's error and logs it)
def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except Exception as error:
        print(f"receipt for order {details['order_id']} failed: {error}")
