def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    started = time.monotonic()
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            # one more attempt may take up to a second (the publish timeout): stop while there is room for it
            if time.monotonic() - started + pause + 1.0 > give_up_after_s:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
