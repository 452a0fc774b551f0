def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    attempt = 0
    while True:
        attempt += 1
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            pause = min(0.05 * attempt, 0.5)  # a little longer each time
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
