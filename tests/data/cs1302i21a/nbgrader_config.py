"""The settings this course needs to be graded here, written as the course's configuration
file. Added here; not part of the course's repository (see NOTICE.md)."""

c = get_config()  # noqa: F821 -- provided by nbgrader when it loads this file

c.CourseDirectory.course_id = "cs1302"
# the notebooks name the course's own kernel (xpython), which is not installed here
c.Execute.kernel_name = "python3"
