# rule: give-up (checks the deadline only every 8 attempts: gives up seconds late)
import time
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause, attempt = 0.05, 0
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            attempt += 1
            if attempt % 8 == 0 and time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
