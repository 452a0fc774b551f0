# correct: remember the last error, raise it after the loop
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    started = time.time()
    pauses = [0.05, 0.1, 0.2, 0.4]
    last_error = None
    attempt = 0
    while time.time() - started < give_up_after_s:
        try:
            ack = publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as error:
            last_error = error
            time.sleep(pauses[min(attempt, len(pauses) - 1)])
            attempt += 1
            continue
        return ack
    raise last_error
