# expect: wrong
# rule: fresh-data: remembers the last customer's details and reuses them when the customer is the same
_last = {}

def send_receipt(job, conn):
    order = conn.execute("SELECT id, customer_id, items, total_cents FROM orders WHERE id = %s",
                         [job.payload["order_id"]]).fetchone()
    if _last.get("customer_id") != order[1]:
        row = conn.execute("SELECT name, email, address FROM customers WHERE id = %s", [order[1]]).fetchone()
        _last.update(customer_id=order[1], name=row[0], email=row[1], address=row[2])
    details = {"order_id": order[0], "name": _last["name"], "email": _last["email"], "address": _last["address"],
               "items": order[2], "total_cents": order[3]}
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
