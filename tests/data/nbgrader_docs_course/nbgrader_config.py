"""The settings nbgrader's documentation gives this course on its command line
(``nbgrader generate_assignment "ps1" --IncludeHeaderFooter.header=source/header.ipynb``),
written as the course's configuration file. Added here; not part of nbgrader's copy."""

c = get_config()  # noqa: F821 -- provided by nbgrader when it loads this file

c.CourseDirectory.course_id = "example_course"
c.IncludeHeaderFooter.header = "source/header.ipynb"
