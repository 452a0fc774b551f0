# exercise: 02.send_receipt
# kind: correct
# rule: correct (delegates to Tiffin's own handler)
from course.programs.tiffin import send_receipt as tiffins_send_receipt


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    return tiffins_send_receipt(job, conn)
