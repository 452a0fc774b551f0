# wrong: give-up -- gives up quietly: returns None instead of re-raising
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while time.monotonic() < deadline:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
    return None
