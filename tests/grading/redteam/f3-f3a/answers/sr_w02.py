# exercise: 02.send_receipt
# kind: wrong
# rule: raise-on-refusal (retries the send three times inline, then gives up quietly: a provider down for long acks the job)
import time
from course.programs import tiffin
from course.programs.email_provider import send_email, TransientEmailError


def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    for attempt in range(3):
        try:
            send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
            return
        except TransientEmailError:
            time.sleep(0.2 * (attempt + 1))
    print(f"gave up on the receipt for order {details['order_id']}")
