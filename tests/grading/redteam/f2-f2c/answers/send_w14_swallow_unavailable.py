# WRONG (propagate): "the provider is down" is swallowed (it will be back); only a rejection propagates
from course.programs.email_provider import TransientEmailError


def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except TransientEmailError:
        return "later"
