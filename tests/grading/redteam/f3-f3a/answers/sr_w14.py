# exercise: 02.send_receipt
# kind: wrong
# rule: raise-on-refusal (gives up by itself from the third attempt on: the refusal is swallowed instead of letting the queue decide)
from course.programs import tiffin
from course.programs.email_provider import send_email


def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except Exception:
        if job.attempts < 2:
            raise
        print(f"giving up on order {receipt.order_id} after {job.attempts} attempts")
