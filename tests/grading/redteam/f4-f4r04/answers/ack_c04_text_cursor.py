# exercise: 04.fenced_ack
# kind: correct
# rule: correct (a cursor, token compared as text, bool(rowcount))
def ack(conn, job_id, lease_token):
    with conn.cursor() as cur:
        cur.execute("DELETE FROM jobs WHERE jobs.id = %s AND jobs.lease_token::text = %s",
                    (int(job_id), str(lease_token)))
        return bool(cur.rowcount)
