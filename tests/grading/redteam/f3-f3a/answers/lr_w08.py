# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-refuses (waits a fixed 0.2 s instead of for the refusal: the provider is healthy again before the receipt is sent)
import time


def lose_a_receipt(app, provider, how):
    order_id = None
    if how == "provider_error":
        provider.configure(down=True)
        order_id = app.place_order(1, total_cents=1000)["id"]
        time.sleep(0.2)
        provider.healthy()
    elif how == "deploy":
        order_id = app.place_order(1, total_cents=1000)["id"]
        app.terminate()
    elif how == "crash":
        order_id = app.place_order(1, total_cents=1000)["id"]
        app.kill()
    return order_id
