# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-back (the provider is left down)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        seen = len(provider.requests())
        provider.configure(down=True)
        order_id = app.place_order(3, total_cents=990)["id"]
        processes.wait_until(lambda: len(provider.requests()) > seen, 30)
        return order_id
    order_id = app.place_order(3, total_cents=990)["id"]
    if how == "deploy":
        app.terminate()
    else:
        app.kill()
    return order_id
