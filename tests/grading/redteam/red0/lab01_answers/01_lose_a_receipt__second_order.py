# expect: wrong
# rule: return-order-id / place one order (places a second order to prove the provider is back)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        provider.configure(down=True)
        before = len(provider.requests())
        order_id = app.place_order(1, total_cents=1000)["id"]
        processes.wait_until(lambda: len(provider.requests()) > before, timeout=30)
        provider.healthy()
        app.place_order(2, total_cents=1000)
        return order_id
    order_id = app.place_order(1, total_cents=1000)["id"]
    app.terminate() if how == "deploy" else app.kill()
    return order_id
