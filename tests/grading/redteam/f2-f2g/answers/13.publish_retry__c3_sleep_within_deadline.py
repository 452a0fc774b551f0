# correct: sleeps at most until the deadline, tries once more there, then re-raises
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    give_up_at = time.monotonic() + give_up_after_s
    delay = 0.05
    last = None
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as e:
            last = e
        left = give_up_at - time.monotonic()
        if left <= 0:
            raise last
        time.sleep(min(delay, left))
        delay = min(2 * delay, 0.45)
