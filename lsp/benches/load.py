"""Load on the real `ndb lsp` with the real model: 50 open documents and 20
edits per second for 60 seconds, an inlay-hint request after every edit.
Prints how many requests were answered, their latency, the refreshes (the
predictions that finished and were not dropped as stale) and the server's
peak RSS. Not a test: run it by hand (docs/fuzzing.md has the figures):

    nice -n 19 python3 lsp/benches/load.py target/debug/ndb [--seconds 60] [--documents 50] [--rate 20]
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

PROGRAM = '''def running_max_{n}(xs):
    """
    >>> running_max_{n}([{a}, 1, 4, 1, 5])
    """
    best = None
    out = []
    for x in xs:
        if best is None or x > best:
            best = x + {k}
        out.append(best)
    return out
'''


def rss_kb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Server:
    def __init__(self, ndb):
        self.process = subprocess.Popen([ndb, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=open("lsp-load.stderr", "w"))
        self.lock = threading.Lock()
        self.pending = {}
        self.latencies = []
        self.refreshes = 0
        self.errors = 0
        self.next_id = 1
        threading.Thread(target=self.read, daemon=True).start()

    def send(self, message):
        body = json.dumps(message).encode()
        with self.lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()

    def request(self, method, params):
        with self.lock:
            request_id = self.next_id
            self.next_id += 1
            self.pending[request_id] = time.monotonic()
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return request_id

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(stream.read(length))
            if "method" in message:
                if message["method"] == "workspace/inlayHint/refresh":
                    self.refreshes += 1
                if "id" in message:
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            with self.lock:
                started = self.pending.pop(message.get("id"), None)
            if started is not None:
                self.latencies.append(time.monotonic() - started)
                if "error" in message:
                    self.errors += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ndb")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--documents", type=int, default=50)
    parser.add_argument("--rate", type=float, default=20)
    args = parser.parse_args()
    server = Server(args.ndb)
    started = time.monotonic()
    first = server.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {
        "workspace": {"inlayHint": {"refreshSupport": True}, "configuration": False},
        "window": {"workDoneProgress": False}}})
    while first in server.pending and time.monotonic() - started < 60:
        time.sleep(0.01)
    server.notify("initialized", {})
    versions = {}
    for n in range(args.documents):
        uri = f"file:///load/doc{n}.py"
        versions[uri] = 1
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                "text": PROGRAM.format(n=n, a=n, k=0)}})
        server.notify("ndb/setBreakpoints", {"uri": uri, "lines": [9]})
    uris = list(versions)
    sent = 0
    load_started = time.monotonic()
    peak_during = 0
    while time.monotonic() - load_started < args.seconds:
        uri = uris[sent % len(uris)]
        versions[uri] += 1
        n = int(uri.rsplit("doc", 1)[1].split(".")[0])
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": versions[uri]},
                                                 "contentChanges": [{"text": PROGRAM.format(n=n, a=n, k=versions[uri] % 7)}]})
        server.request("textDocument/inlayHint", {"textDocument": {"uri": uri},
                                                  "range": {"start": {"line": 0, "character": 0}, "end": {"line": 12, "character": 0}}})
        sent += 1
        if sent % 20 == 0:
            peak_during = max(peak_during, rss_kb(server.process.pid, "VmRSS:") or 0)
        next_at = load_started + sent / args.rate
        time.sleep(max(0.0, next_at - time.monotonic()))
    drain_until = time.monotonic() + 30
    while server.pending and time.monotonic() < drain_until:
        time.sleep(0.05)
    peak = rss_kb(server.process.pid, "VmHWM:")
    unanswered = len(server.pending)
    server.request("shutdown", None)
    time.sleep(0.5)
    server.notify("exit", None)
    server.process.wait(timeout=30)
    latencies = sorted(server.latencies)
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")
    print(f"lsp load: {args.documents} documents, {sent} edits in {args.seconds:.0f} s ({sent / args.seconds:.1f}/s), "
          f"each followed by an inlayHint request")
    print(f"  answered {len(latencies)} of {sent + 2} requests ({unanswered} unanswered, {server.errors} errors); "
          f"inlayHint latency p50 {pick(0.5):.1f} ms, p95 {pick(0.95):.1f} ms, max {pick(1.0):.1f} ms")
    print(f"  {server.refreshes} hint refreshes (finished predictions; the rest were dropped as stale)")
    print(f"  server peak RSS {peak / 1024 if peak else float('nan'):.0f} MiB (VmHWM), {peak_during / 1024:.0f} MiB seen during the load")
    print(f"  server exit code {server.process.returncode}")
    sys.exit(0 if unanswered == 0 else 1)


if __name__ == "__main__":
    main()
