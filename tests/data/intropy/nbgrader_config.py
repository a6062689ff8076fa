"""The settings of introPy's own nbgrader_config.py this course needs here: its id and its
cell time limit (its source folder is named ``solutions`` there; here, ``source``). Written
here; see NOTICE.md."""

c = get_config()  # noqa: F821 -- provided by nbgrader when it loads this file

c.CourseDirectory.course_id = "intropy"
c.Execute.timeout = 300
