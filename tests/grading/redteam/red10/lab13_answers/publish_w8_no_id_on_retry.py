# wrong | same-msg-id (retries without msg_id)
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        pass
    while True:
        time.sleep(pause)
        pause = min(pause * 2, 0.4)
        try:
            return publish(subject, payload, msg_id=None)
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
