# correct | - | id = ANY(ARRAY(...)), named parameters, a dict_row cursor turned back into a tuple, lease by interval multiplication
from psycopg.rows import dict_row

CLAIM_ONE = """
UPDATE jobs
   SET attempts = attempts + 1,
       locked_until = now() + (%(lease_s)s::float8 * interval '1 second')
 WHERE id = ANY(ARRAY(
         SELECT id
           FROM jobs
          WHERE run_at <= now()
            AND (locked_until < now() OR locked_until IS NULL)
       ORDER BY run_at
          LIMIT 1
     FOR UPDATE SKIP LOCKED))
RETURNING id, type, payload
"""

def claim(conn, lease_s):
    cur = conn.cursor(row_factory=dict_row)
    try:
        got = cur.execute(CLAIM_ONE, {"lease_s": lease_s}).fetchone()
    finally:
        cur.close()
    return None if got is None else (got["id"], got["type"], got["payload"])
