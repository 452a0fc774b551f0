# exercise: 04.fenced_ack
# kind: wrong
# rule: fenced: fenced on the first call only, then the plain DELETE (a cached 'fast path')
_fast = []

def ack(conn, job_id, lease_token):
    if _fast:
        return conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount == 1
    _fast.append(True)
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token]).rowcount == 1
