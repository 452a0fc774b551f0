# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-refuses (the provider is put back before the receipt is sent: it is delivered)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        provider.configure(down=True)
        order_id = app.place_order(1, total_cents=990)["id"]
        provider.healthy()
        return order_id
    order_id = app.place_order(1, total_cents=990)["id"]
    app.terminate() if how == "deploy" else app.kill()
    return order_id
