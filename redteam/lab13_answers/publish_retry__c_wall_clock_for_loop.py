# rule: correct (time.time deadline, attempts counted, pause computed from the attempt number)
import time
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    give_up_at = time.time() + give_up_after_s
    attempt = 0
    while True:
        try:
            ack = publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            wait = min(0.05 * (2 ** attempt), 0.45)
            attempt += 1
            if time.time() + wait >= give_up_at:
                raise
            time.sleep(wait)
            continue
        return ack
