# wrong | give-up (an attempt budget from give_up_after_s: ignores how long each attempt took)
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    attempts = max(1, int(give_up_after_s / 0.2))
    for attempt in range(attempts):
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if attempt == attempts - 1:
                raise
            time.sleep(0.2)
