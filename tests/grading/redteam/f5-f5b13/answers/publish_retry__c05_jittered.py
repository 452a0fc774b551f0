import random


def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    base = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            # about `base`, give or take 20 %, so that producers that failed together do not retry together
            pause = min(base * random.uniform(0.8, 1.2), 0.5)
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            base = min(base * 2, 0.5)
