# exercise: 02.send_receipt
# kind: wrong
# rule: raise-on-refusal (a 503 with Retry-After is waited out once in the handler; a second refusal is swallowed)
import time
from course.programs import tiffin
from course.programs.email_provider import send_email, ProviderUnavailable


def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except ProviderUnavailable as busy:
        time.sleep(min(busy.retry_after_s or 0.5, 2))
        try:
            send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
        except ProviderUnavailable:
            pass
