LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    def found():
        yield from (f"LATE {v.queue} {v.waiting_s / 60:.1f} min" for v in snapshot.queues if v.waiting_s - LIMIT_S > 0)
        if snapshot.dead_letters >= 1:
            yield "DEAD LETTERS %d" % snapshot.dead_letters
    return list(found())
