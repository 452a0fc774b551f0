# expect: wrong
# rule: fresh-data: the customer kept per connection (functools.lru_cache)
import functools

@functools.lru_cache(maxsize=None)
def _customer(conn, customer_id):
    return conn.execute("SELECT name, email, address FROM customers WHERE id = %s", [customer_id]).fetchone()

def send_receipt(job, conn):
    order_id, customer_id, items, total = conn.execute(
        "SELECT id, customer_id, items, total_cents FROM orders WHERE id = %s", [job.payload["order_id"]]).fetchone()
    name, email, address = _customer(conn, customer_id)
    receipt = tiffin.render_receipt(dict(order_id=order_id, name=name, email=email, address=address,
                                         items=items, total_cents=total))
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
