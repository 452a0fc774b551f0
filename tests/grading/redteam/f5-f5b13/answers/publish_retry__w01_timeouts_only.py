def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except (TimeoutError, ConnectionError):  # the leader is slow, or the connection dropped
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
