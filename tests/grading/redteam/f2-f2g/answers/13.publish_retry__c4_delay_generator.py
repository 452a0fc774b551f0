# correct: a generator of pauses, a deadline checked before each pause
def _pauses(first=0.05, cap=0.4):
    pause = first
    while True:
        yield pause
        pause = min(pause * 2, cap)


def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    end = time.monotonic() + give_up_after_s
    for pause in _pauses():
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() >= end:
                raise
            time.sleep(pause)
