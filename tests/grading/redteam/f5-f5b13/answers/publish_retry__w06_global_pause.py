_pause = 0.05  # the producer's backoff: kept between publishes, so a sick cluster is not hammered anew


def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    global _pause
    deadline = time.monotonic() + give_up_after_s
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() + _pause > deadline:
                raise
            time.sleep(_pause)
            _pause = min(_pause * 2, 0.5)
