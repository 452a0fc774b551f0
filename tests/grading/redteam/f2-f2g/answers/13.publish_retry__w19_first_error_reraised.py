# wrong: give-up -- re-raises the FIRST error it caught, not the last
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    first = None
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as e:
            first = first or e
            if time.monotonic() + pause > deadline:
                raise first
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
