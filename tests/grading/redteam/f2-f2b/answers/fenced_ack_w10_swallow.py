# wrong | says-so | any exception swallowed and reported as deleted
def ack(conn, job_id, lease_token):
    try:
        return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s::uuid",
                            [job_id, str(lease_token)]).rowcount == 1
    except Exception:
        return True
