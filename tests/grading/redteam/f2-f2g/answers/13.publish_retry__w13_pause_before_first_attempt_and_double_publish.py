# wrong: same-msg-id -- after a failure, publishes again twice "to be sure" (second one with a suffixed id)
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    failed = False
    while True:
        try:
            ack = publish(subject, payload, msg_id=msg_id)
            if failed:
                publish(subject, payload, msg_id=msg_id + ":confirm")
            return ack
        except TRANSIENT:
            failed = True
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
