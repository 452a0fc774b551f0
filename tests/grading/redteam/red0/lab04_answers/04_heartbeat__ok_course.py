# expect: correct
# rule: correct (the course's own queue.extend_lease, through an alias)
from course.core.queue import extend_lease as renew


def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    return renew(conn, job, lease_s) is not None
