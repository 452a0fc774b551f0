# rule: give-up (retries for ever)
import time
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
