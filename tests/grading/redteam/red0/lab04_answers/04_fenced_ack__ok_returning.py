# expect: correct
# rule: correct (RETURNING the id, the row or None)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    return conn.execute("DELETE FROM jobs WHERE lease_token = %(token)s AND id = %(id)s RETURNING id",
                        {"id": job_id, "token": lease_token}).fetchone()
