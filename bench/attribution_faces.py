"""Three generated answers as a user sees them, before attribution and after: the chat UI
(screenshots) and the CLI (its text), for issue #43's report.

A model server on loopback answers three questions of the sample the way small models
write (its replies below: a right sentence without a marker and a made-up claim; a right
sentence with another paper's marker; a changed figure beside a right sentence), reading the
prompt's numbering so that each marker names the paper meant. `paperchat serve` and
`paperchat ask` run on an index of the sample with ``PAPERCHAT_ATTRIBUTION=off`` (the check
before: a marker need only name an offered source) and ``attach`` (the default).

    python bench/attribution_faces.py --out-dir docs/attribution \\
        --json bench/results/attribution_faces.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ui_screenshot import launch, served  # noqa: E402

# question -> the model's reply; {Name} is the prompt's number of the paper so named,
# {other} the number of another paper offered (of none offered when the prompt has one).
CASES = {
    "unmarked-and-made-up": (
        "How does KCache reduce the memory overhead of the KV cache?",
        "KCache alleviates the memory bottleneck of LLM inference without any training and "
        "improves throughput by 40% while keeping accuracy. It won the best paper award at "
        "OSDI 2019 [{other}].",
    ),
    "wrong-marker": (
        "What does Llumnix do?",
        "Llumnix reschedules requests at runtime across multiple model instances, much as an "
        "operating system switches contexts across CPU cores [{other}]. It migrates requests "
        "and their in-memory states live between instances [{Llumnix}].",
    ),
    "changed-figure": (
        "How much does KCache improve throughput?",
        "KCache can be used for inference directly, without any training [{KCache}]. It "
        "improves the throughput of popular LLMs by 75% over the baseline, while keeping "
        "accuracy [{KCache}].",
    ),
}
MODES = ("off", "attach")


def _reply(prompt: str) -> str:
    numbers = {m[2]: m[1] for m in re.finditer(r"^\[(\d+)\] ([\w-]+)", prompt, re.M)}
    if not numbers:  # not a question over sources (a conversation's title)
        return "A question on LLM serving"
    for question, reply in CASES.values():
        if question in prompt:
            others = [n for name, n in numbers.items() if name not in ("KCache", "Llumnix")]
            # With one paper offered, "another paper's marker" names a source not offered.
            return reply.format(other=others[0] if others else str(len(numbers) + 1), **numbers)
    return "I cannot answer that from these sources."


class _Model(BaseHTTPRequestHandler):
    """POST /v1/chat/completions: the reply to the question in the prompt, streamed word by
    word when asked to stream."""

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        reply = _reply("\n".join(str(m.get("content", "")) for m in body["messages"]))
        if body.get("stream"):
            words = reply.split(" ")
            chunks = [{"id": "c", "object": "chat.completion.chunk", "created": 0,
                       "model": "tiny", "choices": [{"index": 0, "delta": {"content": w + " "
                       * (i < len(words) - 1)}}]} for i, w in enumerate(words)]  # fmt: skip
            out = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
            out += b"data: [DONE]\n\n"
            kind = "text/event-stream"
        else:
            message = {"role": "assistant", "content": reply}
            out = json.dumps({"id": "c", "object": "chat.completion", "created": 0,
                              "model": "tiny", "choices": [{"index": 0, "message": message,
                              "finish_reason": "stop"}]}).encode()  # fmt: skip
            kind = "application/json"
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def _ui(url: str, question: str, path: Path, browser: object) -> str:
    page = browser.new_page(viewport={"width": 1280, "height": 720})  # type: ignore[attr-defined]
    page.goto(url, wait_until="domcontentloaded")
    box = page.locator("#pc-question textarea")
    box.wait_for(timeout=30_000)
    box.fill(question)
    box.press("Enter")
    page.wait_for_selector("#pc-sources .pc-source", timeout=60_000)
    page.wait_for_timeout(500)  # the last streamed event settles the markers
    page.evaluate("window.scrollTo(0, 0)")  # boxes are measured from the viewport
    boxes = [page.locator(s).bounding_box() for s in ("#pc-chat", "#pc-sources")]
    x0, y0 = min(b["x"] for b in boxes), min(b["y"] for b in boxes)
    x1 = max(b["x"] + b["width"] for b in boxes)
    y1 = max(b["y"] + b["height"] for b in boxes)
    clip = {"x": x0, "y": y0, "width": x1 - x0, "height": min(y1 - y0, 560)}
    page.screenshot(path=str(path), full_page=True, clip=clip)  # the chat, its sources
    text = page.locator("#pc-chat").inner_text()
    page.close()
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=ROOT / "data" / "sample")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "docs" / "attribution")
    ap.add_argument("--json", type=Path,
                    default=ROOT / "bench" / "results" / "attribution_faces.json")  # fmt: skip
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    model = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    model.daemon_threads = True
    threading.Thread(target=model.serve_forever, daemon=True).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAPERCHAT_"))}
    env |= {"PAPERCHAT_DATA_DIR": tempfile.mkdtemp(prefix="paperchat-faces-"),
            "PAPERCHAT_LLM": "openai", "PAPERCHAT_LLM_MODEL": "tiny", "OPENAI_API_KEY": "none",
            "OPENAI_BASE_URL": f"http://127.0.0.1:{model.server_address[1]}/v1"}  # fmt: skip
    cli = [sys.executable, "-m", "ui.cli.main"]
    subprocess.run([*cli, "ingest", str(args.corpus)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    args.out_dir.mkdir(parents=True, exist_ok=True)
    report: dict[str, dict] = {}
    with sync_playwright() as p:
        browser = launch(p)
        for mode in MODES:
            menv = env | {"PAPERCHAT_ATTRIBUTION": mode}
            with served(cli, menv) as url:
                for case, (question, _) in CASES.items():
                    shot = args.out_dir / f"{case}-{mode}.png"
                    ui = _ui(url, question, shot, browser)
                    said = subprocess.run([*cli, "ask", question], env=menv, cwd=ROOT,
                                          capture_output=True, text=True, check=True)  # fmt: skip
                    report.setdefault(case, {"question": question})[mode] = {
                        "ui_text": ui,
                        "cli": said.stdout,
                        "screenshot": shot.name,
                    }
                    print(f"== {case} ({mode})\n{said.stdout}")
        browser.close()
    model.shutdown()
    for case, (_, reply) in CASES.items():
        report[case]["model_wrote"] = reply
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(f"saved {args.json} and {len(CASES) * len(MODES)} screenshots in {args.out_dir}")


if __name__ == "__main__":
    main()
