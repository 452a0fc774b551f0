# wrong: give-up -- gives up after 5 attempts, whatever give_up_after_s says (well before it)
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    pause = 0.05
    for attempt in range(5):
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if attempt == 4:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
