"""The resource limits of one sandbox (:class:`Limits`) and the byte units they use."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

MiB = 1024 * 1024
GiB = 1024 * MiB


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox (one notebook's kernel and all it starts).

    Parameters
    ----------
    address_space : int
        ``RLIMIT_AS`` of every process, bytes.
    total_memory : int
        Resident memory of all the sandbox's processes together, bytes (watchdog).
    processes : int
        ``RLIMIT_NPROC``: processes *and threads* of the sandbox's user.
    cpu_seconds : int
        ``RLIMIT_CPU`` of every process (then SIGXCPU, and SIGKILL a little later).
    file_size : int
        ``RLIMIT_FSIZE``: largest file a process may write, bytes.
    open_files : int
        ``RLIMIT_NOFILE``.
    scratch_size : int
        Size of the tmpfs holding the working directory, bytes.
    tmp_size : int
        Size of the tmpfs on ``/tmp``, bytes.
    shm_size : int
        Size of the tmpfs on ``/dev/shm``, bytes.
    submission_bytes : int
        At most this many bytes of the student's files are copied into the sandbox.
    run_dir_bytes : int
        The run folder (connection file and sockets, on the host) may not grow past this.
    """

    address_space: int = 3 * GiB
    total_memory: int = 2 * GiB
    processes: int = 64
    cpu_seconds: int = 600
    file_size: int = 64 * MiB
    open_files: int = 512
    scratch_size: int = 128 * MiB
    tmp_size: int = 128 * MiB
    shm_size: int = 32 * MiB
    submission_bytes: int = 64 * MiB
    run_dir_bytes: int = 1 * MiB

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> Limits:
        """Limits with the fields named in *values* changed (unknown names are an error)."""
        if not values:
            return cls()
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - names)
        if unknown:
            raise ValueError(f"unknown sandbox limits: {', '.join(unknown)}")
        return dataclasses.replace(cls(), **{k: int(v) for k, v in values.items()})
