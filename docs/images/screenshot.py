"""Screenshot of the Dagster asset graph with headless Chromium (how docs/images/asset-graph.png
was made). Run while `arandu-pipelines dev` (or `demo`) serves the UI:

    python docs/images/screenshot.py --url http://127.0.0.1:3000 --out docs/images/asset-graph.png

Chromium runs headless with no sandbox, GPU, background networking, component updates or sync,
and a fresh profile; it is driven over the DevTools protocol (the `websockets` package that
dagster-webserver already installs) so the graph's groups can be expanded and its direction set
before the capture. Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request

GROUPS = ("ingestion", "extraction", "consolidation")


async def capture(url: str, out: str, width: int, height: int, direction: str, wait: float,
                  port: int, page: str = "graph") -> None:
    import websockets

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    chrome = subprocess.Popen(
        [shutil.which("chromium") or shutil.which("chromium-browser") or "chromium", "--headless",
         "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={profile}", f"--window-size={width},{height}",
         f"--remote-debugging-port={port}", "--remote-debugging-address=127.0.0.1", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        target = None
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                    target = next(t for t in json.load(r) if t.get("type") == "page")
                break
            except Exception:
                time.sleep(0.2)
        if target is None:
            raise RuntimeError("chromium did not start")
        async with websockets.connect(target["webSocketDebuggerUrl"], max_size=64 * 2**20) as ws:
            ids = iter(range(1, 10**6))

            async def call(method: str, **params: object) -> dict:
                msg_id = next(ids)
                await ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
                while True:
                    msg = json.loads(await ws.recv())
                    if msg.get("id") == msg_id:
                        return msg.get("result", {})

            await call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                       deviceScaleFactor=1, mobile=False)
            await call("Page.navigate", url=url + "/runs")
            await asyncio.sleep(3)
            if page == "runs":   # the runs list: import -> extraction -> consolidation per agent
                await asyncio.sleep(wait)
                shot = await call("Page.captureScreenshot", format="png")
                with open(out, "wb") as fh:
                    fh.write(base64.b64decode(shot["data"]))
                return
            await call("Runtime.evaluate", expression=(
                f"localStorage.setItem('asset-graph-direction', JSON.stringify('{direction}'))"))
            expanded = ",".join(f"global@global:{g}" for g in GROUPS)
            await call("Page.navigate", url=f"{url}/asset-groups?expanded={expanded}")
            await asyncio.sleep(wait)
            # more room for the graph: collapse the main navigation (remembered by the UI), then
            # reload so the graph zooms to fit the new width
            await call("Runtime.evaluate", expression=(
                "(() => { const b = [...document.querySelectorAll('button')];"
                " const nav = b.find(x => x.textContent.trim() === 'Hide navigation');"
                " if (nav) nav.click(); })()"))
            await asyncio.sleep(1)
            await call("Page.reload")
            await asyncio.sleep(wait)
            shot = await call("Page.captureScreenshot", format="png")
        with open(out, "wb") as fh:
            fh.write(base64.b64decode(shot["data"]))
    finally:
        chrome.terminate()
        try:
            chrome.wait(timeout=10)
        except subprocess.TimeoutExpired:
            chrome.kill()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--url", default="http://127.0.0.1:3000")
    p.add_argument("--out", default="docs/images/asset-graph.png")
    p.add_argument("--width", type=int, default=1800)
    p.add_argument("--height", type=int, default=1000)
    p.add_argument("--direction", default="vertical", choices=["horizontal", "vertical"])
    p.add_argument("--wait", type=float, default=10.0)
    p.add_argument("--port", type=int, default=9333)
    p.add_argument("--page", default="graph", choices=["graph", "runs"],
                   help="the asset graph (default) or the runs list")
    a = p.parse_args()
    asyncio.run(capture(a.url.rstrip("/"), a.out, a.width, a.height, a.direction, a.wait, a.port, a.page))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
