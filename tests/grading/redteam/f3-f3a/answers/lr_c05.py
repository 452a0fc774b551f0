# exercise: 01.lose_a_receipt
# kind: correct
# rule: correct (hints 1-3's steps, word for word)
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        seen = len(provider.requests())
        provider.configure(down=True)
        order = app.place_order(1, total_cents=1150)
        processes.wait_until(lambda: len(provider.requests()) > seen, 30)
        provider.healthy()
        return order["id"]
    order = app.place_order(1, total_cents=1150)
    if how == "deploy":
        app.terminate()
    else:
        app.kill()
    return order["id"]
