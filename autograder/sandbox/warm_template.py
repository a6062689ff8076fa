"""The warm box's template: a process inside a sandbox that imports the course's modules
once, then makes each notebook's kernel a fork of itself in namespaces of its own.

Bubblewrap runs this file inside the warm box (bound read-only; see
:mod:`autograder.sandbox.warm`) as root, with the box's capabilities and without a seccomp
filter: it needs them to build each kernel's sandbox. It talks only to its grading worker,
over the socket whose descriptor is its one argument (``multiprocessing.connection``
messages). The first message is the start: ``preload`` (modules to import), ``seccomp`` (the
compiled filter, :func:`autograder.sandbox.seccomp.seccomp_filter`, or None), ``wrapper``
(where the sandbox's wrapper is bound: its copy and confine steps are reused), ``copies``
(files copied into ``/tmp`` before the imports: matplotlib's font list). It answers
``("ready", pid)``. Each later message asks for one kernel (see :func:`make_kernel`) and is
answered ``(pid, error)``: the pid (in the box) of the kernel's outer process, and None or
why the kernel could not be made. None ends the template.

One kernel, three processes:

- *outer* (forked from the template, root): enters new mount, PID, IPC, network and UTS
  namespaces (``unshare``), makes every mount private, forks the next one and waits for it;
- *init* (PID 1 of the new PID namespace, root): mounts a ``/proc`` of its namespace, fresh
  size-limited tmpfs on the working folder, ``/tmp`` and ``/dev/shm`` (folders bound below
  ``/tmp`` stay), copies the submission in, shows the kernel's own run folder and hides
  every other of the box, brings the loopback up, forks the kernel, then reaps until the
  kernel ends and ends with it (and with it, everything in the namespace);
- *kernel* (PID 2): drops to the sandbox's uid with the sandbox's rlimits (the wrapper's
  ``confine``), ``PR_SET_NO_NEW_PRIVS``, loads the seccomp filter, and runs ipykernel
  in-process: numpy, scikit-learn, matplotlib... are already imported.

The template never runs student code, and no kernel can reach it: it is in no kernel's PID
namespace (nothing to signal or trace), every descriptor but the kernel's own is closed, and
a kernel's memory is a copy (a student's ``numpy.pi = 3`` changes the kernel's copy only).

Self-contained on purpose, like the wrapper: only the standard library (and the modules it
is told to preload); nothing of the project is importable inside the box.
"""

import contextlib
import ctypes
import fcntl
import importlib.util
import os
import select
import signal
import socket
import struct
import sys
import traceback
from multiprocessing.connection import Connection

# <sched.h>, <sys/mount.h>, <linux/prctl.h>, <linux/seccomp.h>, <linux/sockios.h>
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 1, 38, 22, 2
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1

#: Seconds the template waits for a kernel to be ready to run ipykernel.
KERNEL_SETUP_SECONDS = 20.0

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _mount(source, target, fstype, flags, data=None) -> None:
    enc = [None if x is None else os.fsencode(x) for x in (source, target, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], flags, enc[3]), f"mount {target}")


def _die_with_parent() -> None:
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_seccomp(program: bytes) -> None:
    """No new privileges, then the compiled classic-BPF *program* for this process and all
    it starts (what bubblewrap's ``--seccomp`` does for a cold sandbox)."""
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    if not program:
        return
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _check(
        _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
        "prctl(PR_SET_SECCOMP)",
    )


def _mount_points() -> list[str]:
    """This mount namespace's mount points (``/proc/self/mountinfo``'s fifth field)."""
    with open("/proc/self/mountinfo") as fh:
        points = [line.split()[4] for line in fh]
    return [p.encode().decode("unicode_escape") for p in points]


def _under(path: str, root: str) -> bool:
    return path.startswith(root.rstrip("/") + "/")


def _bind_fd(fd: int, target: str) -> None:
    """Bind the folder open as *fd* (``O_PATH``) on *target*, making *target* first."""
    os.makedirs(target, mode=0o755, exist_ok=True)
    _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    os.close(fd)


def fresh_tmpfs(target: str, size: int, mode: int, keep_except: str = "") -> None:
    """A new empty tmpfs of *size* bytes on *target*; what is bound below *target* (the
    Python installation may live under ``/tmp``) is bound again on it, but *keep_except*."""
    kept: list[tuple[str, int]] = []  # (mount point, an O_PATH descriptor of it)
    for point in sorted(set(_mount_points()), key=len):
        if _under(point, target) and not (
            keep_except and (point == keep_except or _under(point, keep_except))
        ):
            if any(_under(point, k) for k, _ in kept):
                continue  # comes along with its enclosing bind (MS_REC)
            kept.append((point, os.open(point, os.O_PATH | os.O_DIRECTORY)))
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode={mode:o}")
    for point, fd in kept:
        _bind_fd(fd, point)


def loopback_up() -> None:
    """Bring up the new network namespace's loopback (as bubblewrap does)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


def _close_fds(keep: tuple[int, ...]) -> None:
    """Close every descriptor above 2 but *keep*."""
    fds = sorted(int(n) for n in os.listdir("/proc/self/fd") if int(n) > 2 and int(n) not in keep)
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _report(fd: int, text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, text.encode("utf-8", "replace")[:4000])


# --------------------------------------------------------------------------- one kernel


def _kernel(request: dict, wrapper, seccomp: bytes | None, log_fd: int, status: int) -> None:
    """PID 2: drop everything, then become ipykernel (never returns)."""
    code = 1
    try:
        _die_with_parent()
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.close(null)
        os.close(log_fd)
        _close_fds((status,))
        os.chdir(request["work"])
        wrapper.confine(request["uid"], request["work"], request["rlimits"])
        load_seccomp(seccomp or b"")
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [sys.executable, "-m", "ipykernel_launcher", *request["argv"]]
        sys.path.insert(0, request["work"])  # as `python -m` started in the working folder
        numpy = sys.modules.get("numpy")
        if numpy is not None:  # unseeded draws as unpredictable as a cold kernel's
            numpy.random.seed()
        os.write(status, b"ok")
        os.close(status)
        from ipykernel.kernelapp import launch_new_instance

        launch_new_instance(argv=request["argv"])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    except BaseException:
        _report(status, traceback.format_exc())
        traceback.print_exc()
    finally:
        os._exit(code)


def _init(request: dict, wrapper, seccomp: bytes | None, status: int) -> None:
    """PID 1 of the kernel's namespaces: its own mounts, then the kernel (never returns)."""
    code = 1
    try:
        _die_with_parent()
        root, work, uid = request["root"], request["work"], request["uid"]
        sizes = request["sizes"]
        with contextlib.suppress(OSError):
            _check(_libc.umount2(b"/proc", MNT_DETACH), "umount /proc")
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        log_fd = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        run_dir = os.path.join(root, "run")
        run = os.open(run_dir, os.O_PATH | os.O_DIRECTORY)
        box_root = request["box_root"]
        fresh_tmpfs(work, sizes["work"], 0o700)
        wrapper.copy_submission(os.path.join(root, "stage"), work, uid)
        fresh_tmpfs("/dev/shm", sizes["shm"], 0o1777)
        fresh_tmpfs("/tmp", sizes["tmp"], 0o1777, keep_except=box_root)
        if not _under(box_root, "/tmp"):
            _mount("tmpfs", box_root, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=755")
        # the box's other sandboxes are now out of sight; the kernel's run folder comes back
        _bind_fd(run, run_dir)
        wrapper.copy_extras(request["copies"], uid)
        loopback_up()
        kernel = os.fork()
        if kernel == 0:
            _kernel(request, wrapper, seccomp, log_fd, status)
        os.close(status)
        os.close(log_fd)
        while True:  # reap orphans until the kernel ends; the namespace ends with this process
            pid, wstatus = os.waitpid(-1, 0)
            if pid == kernel:
                code = os.waitstatus_to_exitcode(wstatus)
                code = code if code >= 0 else 128 - code
                break
    except BaseException:
        _report(status, traceback.format_exc())
    finally:
        os._exit(code)


def _outer(request: dict, wrapper, seccomp: bytes | None, status: int) -> None:
    """In the template's fork: new namespaces, then their PID 1 (never returns)."""
    code = 1
    try:
        _die_with_parent()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # not the template's reaper
        os.setsid()
        _close_fds((status,))
        _check(
            _libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS),
            "unshare",
        )
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
        init = os.fork()
        if init == 0:
            _init(request, wrapper, seccomp, status)
        os.close(status)
        _, wstatus = os.waitpid(init, 0)
        code = max(0, os.waitstatus_to_exitcode(wstatus))
    except BaseException:
        _report(status, traceback.format_exc())
    finally:
        os._exit(code)


def make_kernel(request: dict, wrapper, seccomp: bytes | None) -> tuple[int, str | None]:
    """Fork one kernel as *request* says: (the box pid of its outer process, None or why it
    failed).

    *request* has ``root`` (the kernel's sandbox folder: ``run``, ``stage``), ``box_root``
    (the folder of all the box's sandboxes, hidden from the kernel), ``log``, ``work``,
    ``uid``, ``rlimits``, ``sizes`` (``work``, ``tmp``, ``shm``: tmpfs bytes), ``copies``,
    ``argv`` (ipykernel's arguments) and ``env`` (the kernel's whole environment).
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _outer(request, wrapper, seccomp, write_end)
    os.close(write_end)
    said = b""
    try:
        while True:
            ready, _, _ = select.select([read_end], [], [], KERNEL_SETUP_SECONDS)
            if not ready:
                return pid, f"the kernel was not ready after {KERNEL_SETUP_SECONDS:g} s"
            chunk = os.read(read_end, 4096)
            if not chunk:
                break
            said += chunk
    finally:
        os.close(read_end)
    if said == b"ok":
        return pid, None
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)  # and with it, what it had made
    text = said.decode("utf-8", "replace").strip()
    return pid, (text.splitlines()[-1] if text else "the kernel's setup ended without a word")


# --------------------------------------------------------------------------- the template


def serve(conn: Connection, answer) -> None:
    """Send ``answer(request)`` for each request that comes on *conn*, until None comes or
    the connection ends."""
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if request is None:
            return
        conn.send(answer(request))


def preload(names) -> None:
    """Import each module of *names* (one that fails to import is left out), then format
    one traceback as a kernel does (:func:`warm_tracebacks`)."""
    for name in names:
        with contextlib.suppress(Exception):
            __import__(name)
    warm_tracebacks()


def _warm_up_failure() -> None:
    raise AssertionError("warm-up")


def warm_tracebacks() -> None:
    """Format one traceback with IPython's own formatter (when IPython is among the loaded
    modules), so that every kernel forked from this process finds the caches that the
    first traceback of a process fills already filled: ``inspect.getmodule``'s map of
    every loaded module's file (one ``realpath`` per module: thousands once scikit-learn
    and scipy are loaded), pygments' Python lexer (its rules compiled on first use), the
    modules IPython imports only then (stack_data, executing, pure_eval). Measured: a
    kernel's first failed cell took 160 ms of CPU, 21 ms with the caches filled (the
    second, 16 ms). What a traceback shows is unchanged: these are caches of what the
    files and the lexer are, not of a notebook."""
    if "IPython" not in sys.modules:
        return
    with contextlib.suppress(Exception):
        from IPython.core.ultratb import AutoFormattedTB

        try:
            _warm_up_failure()
        except AssertionError:
            AutoFormattedTB(mode="Context").structured_traceback(*sys.exc_info())


def reaper(children: set):
    """A SIGCHLD handler that reaps every child that has ended, at once, and forgets it in
    *children*: no zombies (a worker sees a dead kernel as dead), and the children's CPU
    time counts in this process's children's usage."""

    def reap(_signum, _frame) -> None:
        with contextlib.suppress(ChildProcessError):
            while True:
                pid, _ = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                children.discard(pid)

    return reap


def main(argv: list[str]) -> None:
    """Import what the start message names, then make a kernel per request."""
    conn = Connection(int(argv[1]))
    start = conn.recv()
    spec = importlib.util.spec_from_file_location("sandbox_wrapper", start["wrapper"])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the sandbox's wrapper from {start['wrapper']}")
    wrapper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wrapper)
    wrapper.copy_extras(start["copies"], None)
    preload(start["preload"])
    outers: set[int] = set()
    signal.signal(signal.SIGCHLD, reaper(outers))

    def kernel(request: dict) -> tuple[int, str | None]:
        try:
            pid, error = make_kernel(request, wrapper, start["seccomp"])
        except Exception as exc:  # the fork itself failed
            pid, error = 0, f"{type(exc).__name__}: {exc}"
        if pid:
            outers.add(pid)
        return pid, error

    conn.send(("ready", os.getpid()))
    serve(conn, kernel)
    for pid in list(outers):  # the worker is gone: so are its kernels
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    main(sys.argv)
