"""The labs' programs: the systems they run and the demos they show. Each lab lists its own in
course/grading/labs.toml (`python -m course map` prints them).

The systems, each in a process of its own:

    email_provider   an HTTP email API that is slow, flaky or down when you ask it to be
    checkout         the Tiffin checkout: an HTTP web app that takes orders and sends receipts
    tiffin           Tiffin's tables and its `send_receipt` job handler
    stayhub          StayHub's tables, its checkout and its job handlers
    booking_api      StayHub's booking API: the web app a guest's checkout goes through
    channel_manager  StayHub's slow, flaky channel-manager partner
    http             the few HTTP pieces they share (JSON in and out, start-and-wait-until-ready)
    sql/             their tables and statements as SQL (tiffin.sql, stayhub.sql, ...), shown by the labs

The demos:

    retry_trace      lab 07, 12: a job's retries and their waits, drawn
    stayhub_recurring    lab 08: StayHub's two recurring jobs, the nightly invoices and the unpaid holds
    newsletter       lab 09: one queue or two, the urgent confirmation behind a newsletter
    queueing_theory  labs 09-12: Little's law and Erlang C, the arithmetic of waiting
    rush, pools, saturation_view    lab 10: the dinner rush, worker pools, utilisation and wait
    monitoring_view  labs 11, 12: the live dashboard of snapshots and alerts, and its history drawn
    dead_rows        lab 11: dead row versions, the tools that show them, and the churn that makes them
    jetstream_queue, jetstream_consumer, jetstream_run, jetstream_view, jetstream_bench
                     lab 13: a work queue on a replicated broker, its processes, its pictures, its numbers

Nothing is imported here on purpose: `python -m course.programs.checkout` runs the module as a program,
and a package that had already imported it would run it twice.
"""
