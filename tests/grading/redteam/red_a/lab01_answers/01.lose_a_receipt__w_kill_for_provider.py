# expect: wrong
# rule: provider-refuses: the app is killed too, it does not keep running
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        provider.configure(down=True)
    order = app.place_order(1, total_cents=1200)
    if how == "deploy":
        app.terminate()
    else:
        app.kill()
    provider.healthy()
    return order["id"]
