# expect: wrong
# rule: raise-on-refusal: retries inside the handler (catches the refusal), three tries
def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    for attempt in range(3):
        try:
            send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
            return
        except Exception:
            if attempt == 2:
                raise
            time.sleep(0.2)
