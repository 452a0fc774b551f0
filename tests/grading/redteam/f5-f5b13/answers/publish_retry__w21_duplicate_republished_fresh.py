import uuid


def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause, first_attempt = 0.05, True
    while True:
        try:
            ack = publish(subject, payload, msg_id=msg_id)
            if ack.duplicate and first_attempt:
                # the very first attempt came back "duplicate": that id belonged to an earlier message
                return publish(subject, payload, msg_id=f"{msg_id}:{uuid.uuid4().hex[:8]}")
            return ack
        except TRANSIENT:
            first_attempt = False
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
