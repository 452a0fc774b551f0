# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-refuses (a 1 s outage and no wait: the receipt, still rendering, goes out after it)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        provider.outage(1)
        return app.place_order(1, total_cents=1250)["id"]
    order_id = app.place_order(1, total_cents=1250)["id"]
    (app.terminate if how == "deploy" else app.kill)()
    return order_id
