# exercise: 12.invoice_worker
# expect: correct
# rule: correct: locks the booking's row with a join (FOR NO KEY UPDATE OF b), reads its status from that row, invoice checked first
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        row = conn.execute("SELECT b.status FROM bookings AS b JOIN rooms AS r ON r.id = b.room_id "
                           "WHERE b.id = %(id)s FOR NO KEY UPDATE OF b", {"id": booking_id}).fetchone()
        if row is None or stayhub.invoice_exists(conn, booking_id) or row[0] == "cancelled":
            return None
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id)))
