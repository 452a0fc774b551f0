# wrong (same-msg-id): a duplicate ack is taken as 'not stored' and published again under a new id
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    current = msg_id
    while True:
        try:
            ack = publish(subject, payload, msg_id=current)
            if getattr(ack, "duplicate", False):
                current = msg_id + "-again"
                continue
            return ack
        except TRANSIENT:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
