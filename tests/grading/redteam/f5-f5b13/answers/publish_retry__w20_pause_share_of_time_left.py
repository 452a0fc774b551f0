def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            time.sleep(left / 20)  # a twentieth of the time left: long pauses early, quick retries near the end
