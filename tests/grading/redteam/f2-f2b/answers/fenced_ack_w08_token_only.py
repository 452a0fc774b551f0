# wrong | delete | deletes by lease token alone, ignoring job_id
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE lease_token = %s", [lease_token]).rowcount > 0
