"""A local HTTP server answering from a script, for the retry and transport tests (the service
itself is exercised by test_live.py)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass(frozen=True)
class Trickle:
    """An answer sent the way a stalled peer sends it: its body (with ``headers``, its status line
    and headers too) one byte every ``interval`` seconds."""

    status: int
    body: bytes
    interval: float
    headers: bool = False


@dataclass
class StubServer:
    """Answers each request with the next entry of ``script`` (a status, headers, a JSON body or
    raw bytes, a :class:`Trickle`, or a callable returning one; ``None`` closes the connection
    without an answer)."""

    script: list[Any]
    seen: list[Seen] = field(default_factory=list)

    def __enter__(self) -> StubServer:
        stub = self

        class Handle(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                seen = Seen(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    json.loads(raw) if raw else None,
                )
                stub.seen.append(seen)
                step = stub.script.pop(0) if stub.script else (500, {}, {"error": {"code": "SCRIPT_EXHAUSTED"}})
                answer = step(seen) if callable(step) else step
                if answer is None:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if isinstance(answer, Trickle):
                    self._trickle(answer)
                    return
                status, headers, body = answer
                data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
                self.send_response(status)
                for name, value in {"content-type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _trickle(self, answer: Trickle) -> None:
                self.close_connection = True
                head = (
                    f"HTTP/1.1 {answer.status} Trickled\r\ncontent-type: application/json\r\n"
                    f"content-length: {len(answer.body)}\r\n\r\n"
                ).encode("ascii")
                slow = head + answer.body if answer.headers else answer.body
                try:
                    if not answer.headers:
                        self.wfile.write(head)
                    for byte in slow:
                        self.wfile.write(bytes([byte]))
                        time.sleep(answer.interval)
                except OSError:  # the client gave up
                    return

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handle)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
