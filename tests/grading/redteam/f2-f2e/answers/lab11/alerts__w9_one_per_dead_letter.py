LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    out = [f"queue {v.queue} late" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    out += [f"dead letter {n + 1} of {snapshot.dead_letters}" for n in range(snapshot.dead_letters)]
    return out
