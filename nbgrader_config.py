"""nbgrader configuration for working on the course by hand from the repository root.

The source notebooks live in ``notebooks/<assignment>/<assignment>.ipynb``; generated
folders (release, submitted, autograded, feedback, the gradebook) stay out of git.
The autograder (``python -m autograder``) builds its own course directory with the same
settings (see ``autograder/course/config.py``).
"""

c = get_config()  # noqa: F821 -- provided by nbgrader when it loads this file

c.CourseDirectory.course_id = "linear-classifiers"
c.CourseDirectory.source_directory = "notebooks"
c.CourseDirectory.release_directory = "course/release"
c.CourseDirectory.submitted_directory = "course/submitted"
c.CourseDirectory.autograded_directory = "course/autograded"
c.CourseDirectory.feedback_directory = "course/feedback"
c.CourseDirectory.db_url = "sqlite:///course/gradebook.db"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
