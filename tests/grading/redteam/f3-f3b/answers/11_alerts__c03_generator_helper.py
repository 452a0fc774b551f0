# RULE: correct
def _alert_lines(snapshot):
    for queue_view in snapshot.queues:
        if queue_view.waiting_s - LIMIT_S > 0:
            yield "oldest job in " + queue_view.queue + " waited " + str(round(queue_view.waiting_s, 1)) + " s"
    if snapshot.dead_letters >= 1:
        yield str(snapshot.dead_letters) + " in the dead-letter table"


LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    return list(_alert_lines(snapshot))
