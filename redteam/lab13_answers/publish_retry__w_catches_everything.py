# rule: give-up (retries every exception, a programming error too, for 30 s, and then raises a generic one)
import time
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    last = None
    while time.monotonic() < deadline:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except Exception as error:
            last = error
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
    raise Exception(f"publish failed: {last}")
