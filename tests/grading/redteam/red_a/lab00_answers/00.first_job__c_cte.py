# expect: correct
# rule: correct: jsonb_build_object in SQL, explicit queue and priority
def enqueue_welcome(conn, user_id):
    return conn.execute(
        "WITH new AS (INSERT INTO jobs (queue, type, payload) "
        "VALUES ('default', 'send_welcome_email', jsonb_build_object('user_id', %s::bigint)) RETURNING id) "
        "SELECT id FROM new", [user_id]).fetchone()[0]
