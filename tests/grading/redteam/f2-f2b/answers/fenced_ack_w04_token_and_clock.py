# wrong | delete | token AND run_at > now(): refuses a run-out lease nobody claimed since
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s AND run_at > now()", [job_id, lease_token]).rowcount == 1
