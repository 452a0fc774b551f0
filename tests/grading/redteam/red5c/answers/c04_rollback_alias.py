# Correct: a cursor and rowcount, psycopg.Rollback to leave the transaction when there is nothing to do,
# and outbox.add through an alias.
import psycopg
from course.core.outbox import add as announce


def cancel_order(conn, order_id):
    done = False
    with conn.transaction() as tx:
        cur = conn.cursor()
        cur.execute("UPDATE orders AS o SET status = %s WHERE o.id = %s AND o.status = %s",
                    ("cancelled", order_id, "placed"))
        if cur.rowcount != 1:
            raise psycopg.Rollback(tx)
        announce(conn, CANCELLED, payload={"order_id": order_id})
        done = True
    return done
