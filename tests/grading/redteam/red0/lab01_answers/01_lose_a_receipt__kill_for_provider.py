# expect: wrong
# rule: provider-refuses (kills the app instead of letting the provider refuse: the app does not keep running)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    order_id = app.place_order(1, total_cents=1000)["id"]
    if how == "deploy":
        app.terminate()
    else:
        app.kill()
    return order_id
