# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: lock-then-check (a per-process set of rendered bookings instead of a row lock: two workers, two invoices)
_rendered = set()


def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    if booking_id in _rendered:
        return
    _rendered.add(booking_id)
    with conn.transaction():
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
