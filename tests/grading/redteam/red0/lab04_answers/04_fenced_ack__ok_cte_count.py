# expect: correct
# rule: correct (a CTE counting the deleted rows, the token as text)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    (n,) = conn.execute("""
        WITH gone AS (DELETE FROM jobs WHERE id = %s AND lease_token = %s::uuid RETURNING 1)
        SELECT count(*) FROM gone""", [job_id, str(lease_token)]).fetchone()
    return n == 1
