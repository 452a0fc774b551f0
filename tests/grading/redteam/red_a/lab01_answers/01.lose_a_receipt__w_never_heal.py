# expect: wrong
# rule: provider-back: the provider is left down
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        provider.configure(down=True)
        return app.place_order(1, total_cents=1200)["id"]
    order = app.place_order(1, total_cents=1200)
    app.terminate() if how == "deploy" else app.kill()
    return order["id"]
