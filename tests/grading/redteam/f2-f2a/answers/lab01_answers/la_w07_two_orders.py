# exercise: 01.lose_a_receipt
# kind: wrong
# rule: return-order-id (places a warm-up order first: two orders, not one)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    app.place_order(5, total_cents=100)  # make sure the app answers
    seen = len(provider.requests())
    if how == "provider_error":
        provider.configure(down=True)
    order_id = app.place_order(5, total_cents=1250)["id"]
    if how == "deploy":
        app.terminate()
    elif how == "crash":
        app.kill()
    else:
        processes.wait_until(lambda: len(provider.requests()) > seen + 1, 60)
        provider.healthy()
    return order_id
