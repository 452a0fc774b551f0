# expect: arguable
# rule: meant as wrong, but correct in effect: attempts only grows under other claims, and once our token was seen only our own worker could hand the job back, so the second statement cannot delete a job that is no longer ours
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    row = conn.execute("SELECT attempts FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token]).fetchone()
    if row is None:
        return False
    return conn.execute("DELETE FROM jobs WHERE id = %s AND attempts = %s", [job_id, row[0]]).rowcount == 1
