"""The sandboxed kernel (autograder/sandbox/kernel.py): provisioner and kernel manager."""

from __future__ import annotations

import sys
import time

import pytest
from jupyter_core.utils import run_sync

from autograder.sandbox import ReadyClient, SandboxedKernelManager
from autograder.sandbox.kernel import PROVISIONER_NAME, SandboxProvisioner


def test_the_kernel_spec_names_the_provisioner_and_message_interrupts():
    spec = SandboxedKernelManager().kernel_spec
    assert spec.metadata["kernel_provisioner"]["provisioner_name"] == PROVISIONER_NAME
    assert spec.interrupt_mode == "message"
    assert spec.argv[:3] == [sys.executable, "-m", "ipykernel_launcher"]


def test_interrupting_without_a_kernel_does_nothing():
    """jupyter_client's own manager raises when no kernel runs; the sandbox's does nothing:
    it raises nothing, starts no kernel and makes no sandbox."""
    from jupyter_client.manager import AsyncKernelManager

    with pytest.raises(RuntimeError, match="No kernel is running"):
        run_sync(AsyncKernelManager().interrupt_kernel)()
    km = SandboxedKernelManager()
    assert run_sync(km.interrupt_kernel)() is None
    assert not km.has_kernel and km.sandbox is None and km.provisioner is None


@pytest.mark.needs_sandbox
@pytest.mark.slow
def test_a_kernel_runs_in_its_sandbox_until_shutdown_removes_it(tmp_path):
    (tmp_path / "data.csv").write_text("1,2\n")
    km = SandboxedKernelManager()
    run_sync(km.start_kernel)(cwd=str(tmp_path))
    kc = km.client()
    kc.start_channels()
    try:
        assert isinstance(km.provisioner, SandboxProvisioner)
        box = km.sandbox
        assert box is not None and km.connection_file.startswith(str(box.run_dir))
        assert isinstance(kc, ReadyClient)  # ready once it answered (no idle 0.2 s)
        run_sync(kc.wait_for_ready)(timeout=60)
        seen: list[str] = []

        def keep(msg):
            if msg["msg_type"] == "stream":
                seen.append(msg["content"]["text"])

        code = "import os; print(os.getuid(), os.getcwd(), sorted(os.listdir('.')))"
        reply = run_sync(kc.execute_interactive)(code, timeout=60, output_hook=keep)
        assert reply["content"]["status"] == "ok"
        words = "".join(seen).split(maxsplit=1)
        if box.uid is not None:
            assert int(words[0]) == box.uid
        assert words[1].strip() == "/home/student ['data.csv']"
        assert box.pids()  # the watchdog's view: the kernel is inside
        # an interrupt reaches the kernel as a message: a busy cell ends with KeyboardInterrupt
        kc.execute("import time; time.sleep(60)")
        time.sleep(1)
        run_sync(km.interrupt_kernel)()
        reply = run_sync(kc.get_shell_msg)(timeout=30)
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
    finally:
        kc.stop_channels()
        run_sync(km.shutdown_kernel)(now=True)
    assert km.sandbox is box and not box.root.exists()
    assert box.pids() == []
