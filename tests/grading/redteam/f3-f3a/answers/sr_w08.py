# exercise: 02.send_receipt
# kind: wrong
# rule: raise-on-refusal (the send runs in a thread, lab 01's design: the handler returns before the provider answers, and a refusal raises in the thread, not to the worker)
import threading
from course.programs import tiffin
from course.programs.email_provider import send_email


def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    sender = threading.Thread(target=send_email, args=(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body))
    sender.start()
