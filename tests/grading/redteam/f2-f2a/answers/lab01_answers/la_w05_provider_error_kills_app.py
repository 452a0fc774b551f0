# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-refuses ("provider_error" kills the app instead: the app must keep running and the provider refuse)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    order_id = app.place_order(4, total_cents=1990)["id"]
    if how == "deploy":
        app.terminate()
    else:
        app.kill()
    provider.healthy()
    return order_id
