"""The real programs the labs run, each in a process of its own.

    email_provider   an HTTP email API that is slow, flaky or down when you ask it to be
    checkout         the Tiffin checkout: an HTTP web app that takes orders and sends receipts
    tiffin           Tiffin's tables and its `send_receipt` job handler
    stayhub          StayHub's booking API, its job handlers, and the slow channel-manager partner
    http             the few HTTP pieces they share (JSON in and out, start-and-wait-until-ready)

Nothing is imported here on purpose: `python -m course.systems.checkout` runs the module as a program,
and a package that had already imported it would run it twice.
"""
