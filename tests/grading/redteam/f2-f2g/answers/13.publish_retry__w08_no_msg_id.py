# wrong: same-msg-id -- never passes msg_id: the stream cannot tell a retry from a new message
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload)
        except TRANSIENT:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
