# expect: correct
# rule: correct in behaviour (a transaction: lock the row if the token is ours, then delete it)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    with conn.transaction():
        mine = conn.execute("SELECT 1 FROM jobs WHERE id = %s AND lease_token = %s FOR UPDATE",
                            [job_id, lease_token]).fetchone()
        if mine is None:
            return False
        conn.execute("DELETE FROM jobs WHERE id = %s", [job_id])
    return True
