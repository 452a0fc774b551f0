# wrong: same-msg-id -- a fresh Nats-Msg-Id on each retry ("so it is not dropped as a duplicate")
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause, attempt = 0.05, 0
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id if attempt == 0 else f"{msg_id}-retry{attempt}")
        except TRANSIENT:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
            attempt += 1
