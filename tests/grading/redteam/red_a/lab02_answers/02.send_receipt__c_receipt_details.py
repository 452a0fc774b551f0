# expect: correct
# rule: correct: tiffin.receipt_details, imports inside the function
def send_receipt(job, conn):
    from course.programs import tiffin as t
    from course.programs.email_provider import send_email as send
    r = t.render_receipt(t.receipt_details(conn, job.payload["order_id"]))
    send(t.provider_url(), r.to, r.subject, r.body)
