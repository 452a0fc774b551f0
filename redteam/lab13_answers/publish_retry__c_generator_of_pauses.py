# rule: correct (pauses from a generator, last error kept and re-raised after the loop)
import itertools, time
def pauses():
    for n in itertools.count():
        yield min(0.05 * 2 ** n, 0.4)
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    started = time.monotonic()
    last_error = None
    for pause in pauses():
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as error:
            last_error = error
        if time.monotonic() - started + pause > give_up_after_s:
            raise last_error
        time.sleep(pause)
