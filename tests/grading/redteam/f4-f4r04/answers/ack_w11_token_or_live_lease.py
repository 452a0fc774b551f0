# exercise: 04.fenced_ack
# kind: wrong
# rule: fenced: token OR a lease still running (deletes another worker's live job)
def ack(conn, job_id, lease_token):
    cur = conn.execute("DELETE FROM jobs WHERE id = %s AND (lease_token = %s OR run_at > now())",
                       [job_id, lease_token])
    return cur.rowcount == 1
