# rule: pause (a constant 2 s pause: over half a second, and no doubling)
import time
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() + 2 > deadline:
                raise
            time.sleep(2)
