# exercise: 04.fenced_ack
# kind: wrong
# rule: fenced: token checked in a SELECT, then DELETE by id (race)
def ack(conn, job_id, lease_token):
    row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s", [job_id]).fetchone()
    if row is None or row[0] != lease_token:
        return False
    conn.execute("DELETE FROM jobs WHERE id = %s", [job_id])
    return True
