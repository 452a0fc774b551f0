# wrong (pause: stay under about half a second): random pause up to 2 s
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    import random
    deadline = time.monotonic() + give_up_after_s
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            pause = random.uniform(0.05, 2.0)
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
