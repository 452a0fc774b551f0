def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    started = time.monotonic()
    wait = 0.05
    last_error = None
    while last_error is None or time.monotonic() - started < give_up_after_s:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as error:
            last_error = error
        if time.monotonic() - started + wait >= give_up_after_s:
            break
        time.sleep(wait)
        wait = min(2 * wait, 0.5)
    raise last_error
