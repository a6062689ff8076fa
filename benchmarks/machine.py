"""What the whole machine's cores did: their busy CPU seconds (``/proc/stat``), read once
(:func:`machine_busy`) or sampled through a run (:class:`BusySampler`), so that a run's
idle cores show: the seconds a core had nothing to do while the run went on."""

from __future__ import annotations

import bisect
import threading
import time


def machine_busy() -> float:
    """CPU seconds all of the machine's cores have been busy since boot (``/proc/stat``: all
    but idle and I/O wait): on an idle machine, the grading's CPU, whatever process spent it
    (a process that ended unreaped by the tree, or outside it, is counted too)."""
    import psutil

    t = psutil.cpu_times()
    return (
        sum(t)
        - t.idle
        - getattr(t, "iowait", 0.0)
        - getattr(t, "guest", 0.0)
        - getattr(t, "guest_nice", 0.0)
    )


class BusySampler:
    """The machine's busy CPU seconds every ``interval`` seconds, in a thread, from
    :meth:`start` to :meth:`stop`: :meth:`busy` tells how many core-seconds were busy
    between two moments of the run (``time.time()``), interpolated between samples."""

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self.times: list[float] = []
        self.values: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> BusySampler:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _sample(self) -> None:
        self.times.append(time.time())
        self.values.append(machine_busy())

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def _at(self, moment: float) -> float:
        i = bisect.bisect_left(self.times, moment)
        if i <= 0:
            return self.values[0]
        if i >= len(self.times):
            return self.values[-1]
        t0, t1 = self.times[i - 1], self.times[i]
        v0, v1 = self.values[i - 1], self.values[i]
        return v0 + (v1 - v0) * (moment - t0) / (t1 - t0) if t1 > t0 else v1

    def busy(self, start: float, end: float) -> float:
        """Core-seconds the machine was busy from ``start`` to ``end`` (epoch seconds)."""
        return max(self._at(end) - self._at(start), 0.0)
