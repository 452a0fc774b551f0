# wrong: pause -- doubles without a cap: 0.05, 0.1 ... 3.2, 6.4 s (over half a second)
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause *= 2
