# exercise: 12.invoice_worker
# expect: correct
# rule: correct?: a transaction-scoped advisory lock on the booking id instead of the row lock (same effect: two runs serialise; nothing else waits)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('invoice'), %s::int)", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))
