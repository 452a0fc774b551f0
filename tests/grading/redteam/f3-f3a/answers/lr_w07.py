# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-refuses (ignores how: every way kills the app, so for provider_error the app does not keep running)
def lose_a_receipt(app, provider, how):
    order_id = app.place_order(1, total_cents=1000)["id"]
    app.kill()
    return order_id
