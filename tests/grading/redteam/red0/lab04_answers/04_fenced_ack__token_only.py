# expect: wrong
# rule: delete (that job only: deletes by token alone, ignoring job_id; a wrong id with a live token deletes another job)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    return conn.execute("DELETE FROM jobs WHERE lease_token = %s", [lease_token]).rowcount >= 1
