# kind: wrong
# rule: propagate (every failure turned into a PermanentError: a 503 dead-letters instead of retrying)
from course.errors import PermanentError


def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    try:
        send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=f"confirm:{booking_id}")
    except Exception as error:
        raise PermanentError(f"confirmation for {booking_id} failed: {error}") from error
