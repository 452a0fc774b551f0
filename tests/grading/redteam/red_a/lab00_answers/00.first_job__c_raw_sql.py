# expect: correct
# rule: correct: an INSERT of its own, every other column by default
def enqueue_welcome(conn, user_id):
    from psycopg.types.json import Jsonb
    row = conn.execute("INSERT INTO jobs (type, payload) VALUES (%s, %s) RETURNING id",
                       ["send_welcome_email", Jsonb({"user_id": user_id})]).fetchone()
    return row[0]
