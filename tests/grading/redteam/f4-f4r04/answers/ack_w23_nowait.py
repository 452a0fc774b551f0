# exercise: 04.fenced_ack
# kind: wrong
# rule: delete/says-so: FOR UPDATE NOWAIT: raises LockNotAvailable when the row is locked for a moment, deleting nothing
def ack(conn, job_id, lease_token):
    with conn.transaction():
        row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s FOR UPDATE NOWAIT", [job_id]).fetchone()
        if row is None or row[0] != lease_token:
            return False
        return conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount == 1
