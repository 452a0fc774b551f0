# rule: pause (random pauses up to 1.2 s: over half a second, no doubling)
import random, time
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            pause = random.uniform(0.0, 1.2)
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
