def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    waited, pause = 0.0, 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if waited + pause > give_up_after_s:  # we have waited long enough
                raise
            time.sleep(pause)
            waited += pause
            pause = min(pause * 2, 0.5)
