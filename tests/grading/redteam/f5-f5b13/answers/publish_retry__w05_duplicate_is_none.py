def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            ack = publish(subject, payload, msg_id=msg_id)
            # a duplicate means an earlier attempt stored it: nothing new was published by this one
            return None if ack.duplicate else ack
        except TRANSIENT:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
