# expect: correct
# rule: correct (an outage; waits for a refused request to this customer's address, counted from before the order)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "deploy" or how == "crash":
        order_id = app.place_order(4, total_cents=1500)["id"]
        app.terminate() if how == "deploy" else app.kill()
        return order_id
    address = app.customer(4)["email"]
    already = len(provider.requests())
    provider.configure(down=True)
    order_id = app.place_order(4, total_cents=1500)["id"]
    processes.wait_until(lambda: any(r.to == address and r.status != 200 for r in provider.requests()[already:]),
                         timeout=60)
    provider.healthy()
    return order_id
