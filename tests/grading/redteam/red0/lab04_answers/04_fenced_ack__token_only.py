# expect: arguable
# rule: meant as wrong, but correct in effect: a lease token is a fresh random uuid, so the token alone names the one job it belongs to; a worker always passes its own job id and token together
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    return conn.execute("DELETE FROM jobs WHERE lease_token = %s", [lease_token]).rowcount >= 1
