"""The manifest (course.grading.manifest, labs.toml): the one place that orders the course and names its
exercises; a broken one is refused with where and why."""

import pytest

from course.errors import CourseError
from course.grading import manifest


def test_the_manifest_refuses_duplicates_and_bad_order(tmp_path):
    bad = tmp_path / "labs.toml"
    bad.write_text('[[lab]]\nid = "01"\nslug = "a"\ntitle = "A"\n[[lab]]\nid = "00"\nslug = "b"\ntitle = "B"\n')
    with pytest.raises(CourseError, match="unique and in order"):
        manifest.load.__wrapped__(bad)
    bad.write_text('[[lab]]\nid = "00"\nslug = "a"\ntitle = "A"\n[[lab.exercise]]\nid = "00.x"\ntitle = "X"\n')
    with pytest.raises(CourseError, match="at least one hint"):
        manifest.load.__wrapped__(bad)
