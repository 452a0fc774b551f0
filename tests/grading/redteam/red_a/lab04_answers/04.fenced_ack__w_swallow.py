# expect: wrong
# rule: says-so: any error is swallowed and reported as "deleted"
def ack(conn, job_id, lease_token):
    try:
        conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token])
    except Exception:
        pass
    return True
