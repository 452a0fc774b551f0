import itertools


def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    for attempt in itertools.count():
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            pause = min(0.05 * 2 ** attempt, 0.5)
            if time.monotonic() + pause > deadline:
                raise  # the caller must know the message was not published
            time.sleep(pause)
