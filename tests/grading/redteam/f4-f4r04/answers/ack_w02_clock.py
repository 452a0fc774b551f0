# exercise: 04.fenced_ack
# kind: wrong
# rule: fenced: by the clock (run_at > now()), not the token
def ack(conn, job_id, lease_token):
    """Delete the job only while its lease has not run out."""
    cur = conn.execute("DELETE FROM jobs WHERE id = %s AND run_at > now()", [job_id])
    return cur.rowcount == 1
