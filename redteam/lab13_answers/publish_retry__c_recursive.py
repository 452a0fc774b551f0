# rule: correct (recursive, deadline passed down)
import time
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0, _pause=0.05, _deadline=None):
    deadline = _deadline if _deadline is not None else time.monotonic() + give_up_after_s
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() + _pause > deadline:
            raise
    time.sleep(_pause)
    return publish_with_retry(publish, subject, payload, msg_id, give_up_after_s, min(_pause * 2, 0.5), deadline)
