# exercise: 04.fenced_ack
# kind: wrong
# rule: fenced+lock held too long: locks the row, waits 'for the provider', deletes by id
import time

def ack(conn, job_id, lease_token):
    row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s", [job_id]).fetchone()
    if not row or row[0] != lease_token:
        return False
    time.sleep(0.05)   # let the provider's webhook land first
    return conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount > 0
