# exercise: 01.receipts_lost
# kind: correct
# rule: correct (compares each subject with the receipt subject of each order: tiffin.SUBJECT, as lab 02 does)
from course.programs import tiffin

def receipts_lost(conn, deliveries):
    subjects = {d.subject for d in deliveries}
    order_ids = conn.execute("SELECT id FROM orders ORDER BY id").fetchall()
    return [oid for (oid,) in order_ids if tiffin.SUBJECT.format(order_id=oid) not in subjects]
