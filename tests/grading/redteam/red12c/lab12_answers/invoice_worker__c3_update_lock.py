# correct: the lock taken by a no-op UPDATE of a non-key column (the same FOR NO KEY UPDATE row lock)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        locked = conn.execute("UPDATE bookings SET status = status WHERE id = %s RETURNING status",
                              [booking_id]).fetchone()
        if locked is None or locked[0] == "cancelled":
            return
        if stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id)))
