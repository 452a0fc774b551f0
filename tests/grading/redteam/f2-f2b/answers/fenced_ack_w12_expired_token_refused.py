# wrong | delete | requires the lease still running via claimed_at + lease guess (30 s): refuses an acked-late job
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s AND claimed_at > now() - interval '30 seconds'", [job_id, lease_token]).rowcount == 1
