# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: no-key-update ("blocks only another run of this job": the lock query joins rooms without OF, so it locks the room's row too and every invoice of that room waits for this one)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT b.id, r.name FROM bookings b JOIN rooms r ON r.id = b.room_id "
                     "WHERE b.id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
