# exercise: 02.send_receipt
# kind: wrong
# rule: raise-on-refusal (a permanent refusal, e.g. an impossible address, is swallowed: no retry, no dead letter)
from course.programs import tiffin
from course.programs.email_provider import EmailRejected, send_email


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except EmailRejected:
        pass  # a bad address will never work: nothing to retry
