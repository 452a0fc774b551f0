# wrong: through-an-election -- retries only timeouts; "no responders" or a lost connection escape at once
import asyncio


def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except (asyncio.TimeoutError, TimeoutError):
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
