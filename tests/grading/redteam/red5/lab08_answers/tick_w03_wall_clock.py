# EXERCISE: 08.tick
# EXPECT: wrong
# RULE: use-now
from datetime import datetime, UTC

def tick(conn, now):
    now = datetime.now(UTC)
    return scheduler.tick(conn, now)
