# expect: correct
# rule: correct: fetches each counted job's age (NOT (scheduled and never tried)), takes the minimum per queue in Python
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    worst = {}
    for queue, age in conn.execute(
            """SELECT queue, extract(epoch FROM now() - due_at)
               FROM jobs
               WHERE NOT (run_at > now() AND attempts = 0)"""):
        age = float(age)
        if queue not in worst or age > worst[queue]:
            worst[queue] = age
    return worst
