# correct: a generator of pauses and a for-loop with break
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    def pauses():
        value = 0.05
        while True:
            yield value
            value = min(value * 2, 0.45)

    deadline = time.monotonic() + give_up_after_s
    for pause in pauses():
        try:
            ack = publish(subject, payload, msg_id=msg_id)
            break
        except TRANSIENT as error:
            if time.monotonic() + pause >= deadline:
                raise error
            time.sleep(pause)
    return ack
