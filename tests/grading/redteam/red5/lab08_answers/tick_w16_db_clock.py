# EXERCISE: 08.tick
# EXPECT: wrong
# RULE: use-now (reads the clock table)
def tick(conn, now):
    now = scheduler.clock_now(conn) or now
    return scheduler.tick(conn, now)
