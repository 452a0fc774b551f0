# expect: arguable
# rule: not wrong in any reachable state: tiffin.place_order refuses a total that disagrees with the items, so the sum of the items is the stored total whenever there are items
def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    details = dict(tiffin.receipt_details(conn, job.payload["order_id"]))
    details["total_cents"] = sum(i["quantity"] * i["price_cents"] for i in details["items"]) or details["total_cents"]
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
