# wrong (same-msg-id): a fresh msg_id for each retry
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause, attempt = 0.05, 0
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id if attempt == 0 else f"{msg_id}-retry{attempt}")
        except TRANSIENT:
            attempt += 1
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
