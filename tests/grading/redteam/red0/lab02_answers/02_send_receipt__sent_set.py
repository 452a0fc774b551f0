# expect: wrong
# rule: fresh-data/raise-on-refusal (remembers orders it already tried in the process, and skips them on a retry)
_tried = set()


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    order_id = job.payload["order_id"]
    if order_id in _tried:
        return
    _tried.add(order_id)
    details = tiffin.receipt_details(conn, order_id)
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
