# exercise: 02.send_receipt
# kind: wrong
# rule: raise-on-refusal (an email the provider rejects, a 4xx, is logged and the job returns)
from course.programs import tiffin
from course.programs.email_provider import send_email, EmailRejected


def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except EmailRejected as rejected:
        print(f"receipt for order {receipt.order_id} rejected: {rejected}")
