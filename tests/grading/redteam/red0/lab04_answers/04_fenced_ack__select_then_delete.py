# expect: wrong
# rule: fenced (reads the token, then deletes by id: a rescuer's claim in between is deleted)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s", [job_id]).fetchone()
    if row is None or row[0] != lease_token:
        return False
    conn.execute("DELETE FROM jobs WHERE id = %s", [job_id])
    return True
