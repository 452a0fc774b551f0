# expect: wrong
# rule: return-order-id (returns the order dict)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        provider.configure(down=True)
        before = len(provider.requests())
        order = app.place_order(1, total_cents=1000)
        processes.wait_until(lambda: len(provider.requests()) > before, timeout=30)
        provider.healthy()
        return order
    order = app.place_order(1, total_cents=1000)
    app.terminate() if how == "deploy" else app.kill()
    return order
