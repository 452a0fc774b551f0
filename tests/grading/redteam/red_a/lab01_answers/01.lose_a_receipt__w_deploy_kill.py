# expect: wrong
# rule: deploy-sigterm: a deploy done with SIGKILL
def lose_a_receipt(app, provider, how):
    order = app.place_order(1, total_cents=1200)
    if how in ("deploy", "crash"):
        app.kill()
    else:
        provider.configure(down=True)
        order = app.place_order(2, total_cents=1300)
        before = len(provider.requests())
        processes.wait_until(lambda: any(r.status == 503 for r in provider.requests()), timeout=30)
        provider.healthy()
    return order["id"]
