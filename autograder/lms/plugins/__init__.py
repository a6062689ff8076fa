"""The LMS plugins, one module per learning management system (each a subclass of
:class:`autograder.lms.base.LmsPlugin` decorated with ``register``): every module of this
package is imported when the registry is first read (:func:`autograder.lms.base.lms_plugins`),
so an LMS is added by adding its module here."""
