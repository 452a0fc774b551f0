# expect: wrong
# rule: fresh-data: details cached by order id, kept from one job to the next
_details = {}

def send_receipt(job, conn):
    order_id = job.payload["order_id"]
    if order_id not in _details:
        _details[order_id] = tiffin.receipt_details(conn, order_id)
    receipt = tiffin.render_receipt(_details[order_id])
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
