# exercise: 04.fenced_ack
# kind: arguable
# rule: arguable: swallows every exception and returns False
def ack(conn, job_id, lease_token):
    try:
        return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s",
                            [job_id, lease_token]).rowcount == 1
    except Exception:
        return False
