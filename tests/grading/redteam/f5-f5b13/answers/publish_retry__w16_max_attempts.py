MAX_ATTEMPTS = 10  # like MaxDeliver: past ten attempts something is badly wrong


def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if attempt == MAX_ATTEMPTS or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
