"""The tamper scan's rule tables: which modules, attributes, calls and special methods a
student's cell is flagged for using (read by :mod:`autograder.recheck.scan`)."""

from __future__ import annotations

__all__ = [
    "DANGEROUS_ATTRS",
    "DANGEROUS_CALLS",
    "DANGEROUS_MODULES",
    "IPYTHON_HOOKS",
    "LYING_DUNDERS",
    "WELL_KNOWN_MODULES",
]

#: Names that are modules whatever the notebook imports: patching their attributes is flagged.
WELL_KNOWN_MODULES = frozenset(
    {
        "np",
        "numpy",
        "linlib",
        "sklearn",
        "scipy",
        "builtins",
        "sys",
        "os",
        "IPython",
        "plt",
        "matplotlib",
        "math",
        "nbgrader",
        "pytest",
        "unittest",
        "warnings",
    }
)

#: Special methods through which an object can lie in a comparison or a conversion.
LYING_DUNDERS = frozenset(
    {
        "__eq__",
        "__ne__",
        "__bool__",
        "__array__",
        "__array_ufunc__",
        "__array_function__",
        "__array_interface__",
        "__float__",
        "__int__",
        "__index__",
        "__abs__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__len__",
        "__instancecheck__",
        "__subclasscheck__",
    }
)

#: IPython attributes that change how cells run or display.
IPYTHON_HOOKS = frozenset(
    {
        "ast_transformers",
        "input_transformers_cleanup",
        "input_transformers_post",
        "input_transformer_manager",
        "register_magic_function",
        "register_magics",
        "set_custom_exc",
        "showtraceback",
        "run_cell",
        "run_cell_async",
        "transform_cell",
        "displayhook",
        "display_pub",
        "display_formatter",
    }
)

#: Builtins that run code from strings (None: judged by the arguments).
DANGEROUS_CALLS = {
    "exec": "runs code from a string (exec)",
    "eval": "runs code from a string (eval)",
    "compile": "compiles code at run time",
    "__import__": "imports through __import__",
    "setattr": None,  # judged by its first argument
    "delattr": None,
    "globals": None,
}

#: (module, attribute) -> what using it does.
DANGEROUS_ATTRS = {
    ("os", "system"): "runs a shell command (os.system)",
    ("os", "popen"): "runs a shell command (os.popen)",
    ("os", "fork"): "forks a process (os.fork)",
    ("os", "forkpty"): "forks a process (os.forkpty)",
    ("os", "_exit"): "ends the kernel process (os._exit)",
    ("os", "kill"): "sends signals (os.kill)",
    ("os", "killpg"): "sends signals (os.killpg)",
    ("os", "setsid"): "detaches a process (os.setsid)",
    ("os", "walk"): "walks the file system (os.walk)",
    ("os", "scandir"): "lists directories (os.scandir)",
    ("os", "listdir"): "lists directories (os.listdir)",
    ("os", "chdir"): "changes directory (os.chdir)",
    ("os", "environ"): "reads the environment",
    ("sys", "modules"): "touches sys.modules",
    ("sys", "_getframe"): "inspects the call stack (sys._getframe)",
    ("sys", "settrace"): "installs a tracer (sys.settrace)",
    ("sys", "setprofile"): "installs a profiler (sys.setprofile)",
    ("sys", "exit"): "exits the interpreter (sys.exit)",
    ("inspect", "getsource"): "reads source code (inspect.getsource)",
    ("inspect", "getsourcelines"): "reads source code (inspect.getsourcelines)",
    ("inspect", "currentframe"): "inspects the call stack (inspect.currentframe)",
    ("inspect", "stack"): "inspects the call stack (inspect.stack)",
    ("gc", "get_objects"): "walks every live object (gc.get_objects)",
    ("gc", "get_referrers"): "walks object references (gc.get_referrers)",
    ("signal", "signal"): "installs a signal handler (e.g. ignoring interrupts)",
    ("signal", "pthread_sigmask"): "blocks signals",
    ("resource", "setrlimit"): "changes resource limits",
    ("importlib", "reload"): "reloads a module (importlib.reload)",
    ("importlib", "import_module"): "imports modules by name at run time",
    ("threading", "Thread"): "starts a thread",
    ("shutil", "rmtree"): "deletes folders",
}

#: Top-level module -> what importing it does.
DANGEROUS_MODULES = {
    "subprocess": "starts processes (subprocess)",
    "multiprocessing": "starts processes (multiprocessing)",
    "socket": "opens network sockets",
    "urllib": "makes network requests (urllib)",
    "http": "makes network requests (http)",
    "requests": "makes network requests (requests)",
    "ctypes": "calls C functions directly (ctypes)",
    "nbformat": "reads notebooks (nbformat)",
    "nbgrader": "uses nbgrader",
    "glob": "searches the file system (glob)",
    "pty": "opens terminals (pty)",
    "builtins": "imports builtins",
    "dis": "disassembles code",
    "marshal": "loads code objects (marshal)",
    "pickle": "unpickles objects",
    "sqlite3": "opens databases (sqlite3)",
    "sqlalchemy": "opens databases (sqlalchemy)",
}
