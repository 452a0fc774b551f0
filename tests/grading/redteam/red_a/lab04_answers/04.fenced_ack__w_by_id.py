# expect: wrong
# rule: fenced: the lesson's plain DELETE by id
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount == 1
