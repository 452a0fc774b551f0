# expect: wrong
# rule: raise-on-refusal: the provider's refusal is caught and logged
def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except Exception as error:
        print(f"receipt for order {details['order_id']} not sent: {error}")
