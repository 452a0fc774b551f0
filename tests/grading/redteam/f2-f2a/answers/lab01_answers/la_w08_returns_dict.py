# exercise: 01.lose_a_receipt
# kind: wrong
# rule: return-order-id (returns the order dict)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    seen = len(provider.requests())
    if how == "provider_error":
        provider.configure(down=True)
    order = app.place_order(1, total_cents=1250)
    if how == "deploy":
        app.terminate()
    elif how == "crash":
        app.kill()
    else:
        processes.wait_until(lambda: len(provider.requests()) > seen, 60)
        provider.healthy()
    return order
