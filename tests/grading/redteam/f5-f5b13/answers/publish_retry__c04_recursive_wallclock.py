def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0, _pause=0.05, _give_up_at=None):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    if _give_up_at is None:
        _give_up_at = time.time() + give_up_after_s
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT as error:
        if time.time() + _pause > _give_up_at:
            raise error
    time.sleep(_pause)
    return publish_with_retry(publish, subject, payload, msg_id, give_up_after_s,
                              _pause=min(2 * _pause, 0.5), _give_up_at=_give_up_at)
