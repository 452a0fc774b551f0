# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: arguable — nothing-to-do (a deleted booking raises PermanentError: dead-lettered with an alert instead of skipped) [arguable: not retried]
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None:
            raise PermanentError(f"booking {booking_id} does not exist")
        if booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
