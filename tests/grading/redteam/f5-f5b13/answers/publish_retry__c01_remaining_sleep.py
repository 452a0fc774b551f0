def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    give_up_at = time.monotonic() + give_up_after_s
    pauses = (min(0.05 * 2 ** n, 0.5) for n in range(10**9))
    while True:
        try:
            ack = publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            left = give_up_at - time.monotonic()
            if left <= 0:
                raise
            time.sleep(min(next(pauses), left))
        else:
            return ack
