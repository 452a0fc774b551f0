# exercise: 04.fenced_ack
# kind: wrong
# rule: delete: writes to the notebook's schema lab04.jobs, not the connection's
def ack(conn, job_id, lease_token):
    cur = conn.execute("DELETE FROM lab04.jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token])
    return cur.rowcount == 1
