# expect: wrong
# rule: fresh-data (keeps the first name it saw for each email address, "the name on the account")
def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    details = dict(tiffin.receipt_details(conn, job.payload["order_id"]))
    first_name = _first_names.setdefault(details["email"], details["name"])
    details["name"] = first_name
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)


_first_names = {}
