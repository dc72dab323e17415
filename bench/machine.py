"""What machine a benchmark ran on, recorded beside its figures; a free port on it; and
saving a result with both."""

from __future__ import annotations

import json
import platform
import socket
import time
from pathlib import Path
from typing import Any


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux, else what platform knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def save_result(path: Path, result: dict[str, Any], summary: Any) -> None:
    """Write ``result`` (plus when it was measured) as JSON to ``path``; print ``summary``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    result = result | {"when": time.strftime("%Y-%m-%d %H:%M:%S")}
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    print(f"saved {path}")
