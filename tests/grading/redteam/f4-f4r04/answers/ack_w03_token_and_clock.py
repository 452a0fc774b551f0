# exercise: 04.fenced_ack
# kind: wrong
# rule: delete: refuses a job whose lease ran out though nobody claimed it since
def ack(conn, job_id, lease_token):
    """Belt and braces: our token, and our lease not yet run out."""
    cur = conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s AND run_at > now()",
                       [job_id, lease_token])
    return cur.rowcount == 1
