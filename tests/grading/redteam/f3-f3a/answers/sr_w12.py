# exercise: 02.send_receipt
# kind: wrong
# rule: one-receipt / raise-on-refusal (a short timeout, and a timed-out send is sent again without a key: the provider delivers both)
from course.programs import tiffin
from course.programs.email_provider import send_email, ProviderTimeout


def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body, timeout=0.06)
    except ProviderTimeout:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
