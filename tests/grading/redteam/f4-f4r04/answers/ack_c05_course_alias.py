# exercise: 04.fenced_ack
# kind: correct
# rule: correct (the course's own ack, called through an alias)
import types
from course.core.queue import ack as course_ack

def ack(conn, job_id, lease_token):
    return course_ack(conn, types.SimpleNamespace(id=job_id, lease_token=lease_token))
