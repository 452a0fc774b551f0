# kind: correct
# rule: correct (logs a refused send and re-raises it unchanged)
import logging

log = logging.getLogger("stayhub.confirmations")


def send_confirmation(job, conn):
    booking = job.payload["booking_id"]
    try:
        message_id = send_email(provider_url(), *confirmation_email(conn, booking),
                                idempotency_key=f"confirm:{booking}")
    except Exception:
        log.warning("confirmation for booking %s not accepted; the worker will retry", booking)
        raise
    return message_id
