# expect: correct
# rule: correct: a generator, dead-letter message first, late queues as "queue X is N min late" (order is not a rule)
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def _messages(snapshot):
    if snapshot.dead_letters:
        yield "dead-letter table: %d job%s" % (snapshot.dead_letters, "" if snapshot.dead_letters == 1 else "s")
    for view in sorted(snapshot.queues, key=lambda v: v.waiting_s, reverse=True):
        if not view.waiting_s > LIMIT_S:
            continue
        yield "queue %s is %.1f min late" % (view.queue, view.waiting_s / 60)


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    return list(_messages(snapshot))
