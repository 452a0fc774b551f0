# wrong: give-up -- keeps trying 5 s past give_up_after_s ("a little grace")
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s + 5.0
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
