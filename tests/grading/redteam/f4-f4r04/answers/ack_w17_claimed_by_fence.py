# exercise: 04.fenced_ack
# kind: wrong
# rule: fenced: fences on claimed_at age instead of the token (a clock by another name)
def ack(conn, job_id, lease_token):
    """Ours if claimed recently enough that no one else could have taken it."""
    cur = conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token IS NOT NULL "
                       "AND claimed_at > now() - interval '30 seconds'", [job_id])
    return cur.rowcount == 1
