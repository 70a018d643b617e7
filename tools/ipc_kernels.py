"""Kernels that talk over files of their own instead of TCP ports.

A Jupyter kernel manager picks five free TCP ports, closes them, writes them into the
kernel's connection file and starts the kernel, which binds them a moment later. Two
runs side by side (`make test` runs nbval under two CPU code paths at once, and
`make execute --jobs 2` two notebooks) can pick the same port in that moment; the
kernel that loses dies at start ("Kernel died before replying to kernel_info", seen in
CI). Unix-domain sockets under a fresh directory cannot collide, so both tools start
their kernels with :func:`ipc_kernel_manager`.
"""

from __future__ import annotations

import os
import tempfile
import uuid

from jupyter_client.manager import KernelManager

_SOCKETS = tempfile.TemporaryDirectory(prefix="mmir-kernels-")


def ipc_kernel_manager(**kwargs) -> KernelManager:
    """A KernelManager (same arguments) whose channels are sockets in a directory of this process."""
    return KernelManager(transport="ipc", ip=os.path.join(_SOCKETS.name, uuid.uuid4().hex[:12]), **kwargs)
