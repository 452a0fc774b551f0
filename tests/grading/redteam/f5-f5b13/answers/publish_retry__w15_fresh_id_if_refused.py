def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause, attempt, current_id = 0.05, 0, msg_id
    while True:
        attempt += 1
        try:
            return publish(subject, payload, msg_id=current_id)
        except TRANSIENT as error:
            if time.monotonic() + pause > deadline:
                raise
            if not isinstance(error, TimeoutError):
                # refused outright (no leader, connection refused): nothing was stored, a fresh id is safe
                current_id = f"{msg_id}~{attempt}"
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
