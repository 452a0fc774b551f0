# wrong (give-up: once it has passed): goes on for 3 more attempts after the deadline
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    late = 0
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() > deadline:
                late += 1
                if late > 3:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
