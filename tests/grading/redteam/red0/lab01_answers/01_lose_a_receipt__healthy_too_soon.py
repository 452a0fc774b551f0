# expect: wrong
# rule: provider-refuses (puts the provider back before the receipt was refused: it goes out)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        provider.configure(down=True)
        order_id = app.place_order(1, total_cents=1000)["id"]
        provider.healthy()
        return order_id
    order_id = app.place_order(1, total_cents=1000)["id"]
    app.terminate() if how == "deploy" else app.kill()
    return order_id
