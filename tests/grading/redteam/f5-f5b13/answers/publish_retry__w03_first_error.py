def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause, first_error = 0.05, None
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as error:
            first_error = first_error or error  # what went wrong in the first place
            if time.monotonic() + pause > deadline:
                raise first_error
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
