# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: lock-then-check (NOWAIT, and a busy row is taken as "another run is doing it": the job acks, and if that other holder was not this job, no invoice ever)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        try:
            with conn.transaction():
                conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE NOWAIT", [booking_id])
        except psycopg.errors.LockNotAvailable:
            return  # someone else is rendering it
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
