# expect: wrong
# rule: provider-refuses: the provider is healed before the receipt is sent, so it goes out
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        provider.configure(down=True)
        order = app.place_order(1, total_cents=1200)
        provider.healthy()
        return order["id"]
    order = app.place_order(1, total_cents=1200)
    app.terminate() if how == "deploy" else app.kill()
    return order["id"]
