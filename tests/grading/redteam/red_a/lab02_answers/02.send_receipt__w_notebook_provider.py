# expect: wrong
# rule: only-job-and-conn: the notebook's provider variable
def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    send_email(provider.url, receipt.to, receipt.subject, receipt.body)
