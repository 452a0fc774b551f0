# expect: correct
# rule: correct (also notes claimed_at, which the rules leave free; timedelta parameter)
from datetime import timedelta


def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    cur = conn.execute("UPDATE jobs SET run_at = now() + %s, claimed_at = now() WHERE lease_token = %s AND id = %s",
                       [timedelta(seconds=lease_s), job.lease_token, job.id])
    return cur.rowcount > 0
