def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    try:
        return publish(subject, payload)  # the happy path needs no de-duplication
    except TRANSIENT:
        pass
    while True:
        time.sleep(pause)
        try:
            return publish(subject, payload, msg_id=msg_id)  # a retry: the id keeps it from being stored twice
        except TRANSIENT:
            pause = min(pause * 2, 0.5)
            if time.monotonic() + pause > deadline:
                raise
