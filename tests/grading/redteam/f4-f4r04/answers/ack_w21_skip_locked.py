# exercise: 04.fenced_ack
# kind: wrong
# rule: delete: SKIP LOCKED copied from the claim: a row locked for a moment (a heartbeat, a reader's FOR UPDATE) is not deleted and reported false
def ack(conn, job_id, lease_token):
    cur = conn.execute("""
        DELETE FROM jobs WHERE id = (
            SELECT id FROM jobs WHERE id = %s AND lease_token = %s FOR UPDATE SKIP LOCKED)""",
        [job_id, lease_token])
    return cur.rowcount == 1
