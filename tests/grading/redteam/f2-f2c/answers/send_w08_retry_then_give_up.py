# WRONG (propagate): retries the send itself three times, then gives up quietly
import time as _time


def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    for attempt in range(3):
        try:
            send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
            return
        except Exception:
            _time.sleep(0.05)
