# wrong | fenced | DELETE by id only: the lesson's plain ack
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount == 1
