# correct: itertools.count, keeps the last error, raises it after the deadline
import itertools


def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    started = time.monotonic()
    for attempt in itertools.count():
        try:
            ack = publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as error:
            if time.monotonic() - started >= give_up_after_s:
                raise error
            time.sleep(min(0.05 * 2 ** attempt, 0.4))
        else:
            return ack
