# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-refuses (waits for any request at all: an earlier send satisfies it, and the provider is back before the receipt comes)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        provider.configure(down=True)
        order_id = app.place_order(1, total_cents=1250)["id"]
        processes.wait_until(lambda: len(provider.requests()) > 0, 60)
        provider.healthy()
        return order_id
    order_id = app.place_order(1, total_cents=1250)["id"]
    (app.terminate if how == "deploy" else app.kill)()
    return order_id
