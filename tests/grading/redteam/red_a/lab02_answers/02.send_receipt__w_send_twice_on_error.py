# expect: wrong
# rule: one-receipt: on a refusal sends once more and then raises anyway (two receipts when the second goes out)
def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except Exception:
        try:
            send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
        finally:
            raise
