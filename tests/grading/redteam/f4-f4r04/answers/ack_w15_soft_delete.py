# exercise: 04.fenced_ack
# kind: wrong
# rule: delete: hides the job for ever (run_at infinity) instead of deleting it
def ack(conn, job_id, lease_token):
    """Mark it done: clear the token and push it out of reach."""
    cur = conn.execute("UPDATE jobs SET lease_token = NULL, run_at = 'infinity' WHERE id = %s AND lease_token = %s",
                       [job_id, lease_token])
    return cur.rowcount == 1
