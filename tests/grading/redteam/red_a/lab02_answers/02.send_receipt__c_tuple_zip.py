# expect: correct
# rule: correct: a tuple row zipped with key names, an alias for send_email
from course.programs.email_provider import send_email as deliver

KEYS = ("order_id", "name", "email", "address", "items", "total_cents")

def send_receipt(job, conn):
    row = conn.execute(
        "SELECT o.id, c.name, c.email, c.address, o.items, o.total_cents "
        "FROM customers c, orders o WHERE c.id = o.customer_id AND o.id = %s",
        (job.payload["order_id"],)).fetchone()
    receipt = tiffin.render_receipt(dict(zip(KEYS, row)))
    deliver(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
