# exercise: 04.fenced_ack
# kind: wrong
# rule: fenced: also deletes a job handed back for a retry (token NULL)
def ack(conn, job_id, lease_token):
    """Ours, or nobody's."""
    cur = conn.execute("DELETE FROM jobs WHERE id = %s AND (lease_token = %s OR lease_token IS NULL)",
                       [job_id, lease_token])
    return cur.rowcount == 1
