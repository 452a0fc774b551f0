# expect: wrong
# rule: fenced (the token named only in a comment; the DELETE is by id)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    # fenced by lease_token: only the holder of the lease gets here
    return conn.execute("DELETE FROM jobs WHERE id = %s /* AND lease_token */", [job_id]).rowcount == 1
