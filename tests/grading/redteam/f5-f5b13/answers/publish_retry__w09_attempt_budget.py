def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    # the pauses go 0.05, 0.1, 0.2, 0.4, then 0.5 s: that many attempts fit in give_up_after_s
    pauses = [0.05, 0.1, 0.2, 0.4]
    while sum(pauses) < give_up_after_s:
        pauses.append(0.5)
    for pause in pauses:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            time.sleep(pause)
    return publish(subject, payload, msg_id=msg_id)
