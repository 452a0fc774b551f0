# kind: wrong
# rule: propagate (retries three times inside the handler, then gives up quietly)
import time as _time


def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    email = confirmation_email(conn, booking_id)
    for _ in range(3):
        try:
            send_email(provider_url(), *email, idempotency_key=f"confirm:{booking_id}")
            return
        except Exception:
            _time.sleep(0.1)
