# exercise: 04.heartbeat
# kind: wrong
# rule: effect never committed: turns autocommit off, the beat stays in an open transaction (row locked, others never see it)
def extend_lease(conn, job, lease_s):
    if conn.autocommit and conn.info.transaction_status == 0:
        conn.autocommit = False   # a heartbeat should be transactional
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                       [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
