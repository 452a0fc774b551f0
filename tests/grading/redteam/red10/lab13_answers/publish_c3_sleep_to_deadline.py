# correct
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    give_up_at = time.monotonic() + give_up_after_s
    delays = [0.05, 0.1, 0.2, 0.4]
    n = 0
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            left = give_up_at - time.monotonic()
            if left <= 0:
                raise
            time.sleep(min(delays[min(n, len(delays) - 1)], left))
            n += 1
