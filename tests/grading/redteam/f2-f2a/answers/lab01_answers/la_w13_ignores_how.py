# exercise: 01.lose_a_receipt
# kind: wrong
# rule: deploy-sigterm / provider-refuses (ignores `how`: always SIGKILL)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    order_id = app.place_order(1, total_cents=1250)["id"]
    app.kill()
    return order_id
