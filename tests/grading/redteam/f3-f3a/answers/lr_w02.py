# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-refuses (waits for any request: an earlier send satisfies it, so the provider is healthy again before this receipt is sent)
def lose_a_receipt(app, provider, how):
    if how == "deploy":
        order_id = app.place_order(1, total_cents=1000)["id"]
        app.terminate()
    elif how == "crash":
        order_id = app.place_order(1, total_cents=1000)["id"]
        app.kill()
    else:
        provider.configure(down=True)
        order_id = app.place_order(1, total_cents=1000)["id"]
        processes.wait_until(lambda: provider.requests(), timeout=60)
        provider.healthy()
    return order_id
