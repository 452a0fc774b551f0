# expect: wrong
# rule: raise-on-refusal: every error is swallowed (returns when anything goes wrong)
def send_receipt(job, conn):
    try:
        details = tiffin.receipt_details(conn, job.payload["order_id"])
        receipt = tiffin.render_receipt(details)
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except Exception:
        return False
    return True
