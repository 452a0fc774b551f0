# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: lock-then-check (no lock: a random pause before the check "so two runs do not collide"; wall-clock luck)
import random as _random


def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    time.sleep(_random.uniform(0, 0.2))
    with conn.transaction():
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
