# expect: arguable
# rule: correct, but uses app.log_tail, which the statement does not list among what you have (the check lends an app without it)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    stop = {"deploy": app.terminate, "crash": app.kill}
    if how in stop:
        order_id = app.place_order(2, total_cents=990)["id"]
        stop[how]()
        return order_id
    provider.outage(3600)
    order_id = app.place_order(2, total_cents=990)["id"]
    processes.wait_until(lambda: f"receipt for order {order_id} lost" in app.log_tail(200), timeout=60)
    provider.healthy()
    return order_id
