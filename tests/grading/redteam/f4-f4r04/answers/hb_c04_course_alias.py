# exercise: 04.heartbeat
# kind: correct
# rule: correct (the course's own extend_lease through an alias)
from course.core import queue as q

def extend_lease(conn, job, lease_s):
    return q.extend_lease(conn, job, lease_s)
