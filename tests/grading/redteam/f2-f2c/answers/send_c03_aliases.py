# CORRECT: aliases, keyword arguments, the key built by str.format
from course.programs.email_provider import send_email as deliver


def send_confirmation(job, conn):
    bid = job.payload.get("booking_id")
    to, subject, body = confirmation_email(conn, bid)
    deliver(url=provider_url(), to=to, subject=subject, body=body, idempotency_key="confirm:{}".format(bid))
    return bid
