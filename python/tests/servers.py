"""Servers on 127.0.0.1 for the object-store tests: moto's S3 API (server
mode, in a thread) and a small HTTP server that honours Range requests
and counts the bytes it sends. The Spark tests use them too."""

from __future__ import annotations

import http.server
import pathlib
import re
import socket
import threading
from typing import Any, Iterator

REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class S3Server:
    """moto's S3 API on a free port; `storage_options` for s3fs."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self.port = free_port()
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.storage_options: dict[str, Any] = {
            "key": "testing",
            "secret": "testing",
            "client_kwargs": {"endpoint_url": self.endpoint, "region_name": REGION},
            # Listings are asked for again: the tests write objects as they go.
            "use_listings_cache": False,
        }

    def create_bucket(self, name: str) -> None:
        import boto3

        client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=REGION,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        client.create_bucket(Bucket=name)

    def filesystem(self) -> Any:
        import s3fs

        return s3fs.S3FileSystem(skip_instance_cache=True, **self.storage_options)

    def stop(self) -> None:
        self.server.stop()


class RangeServer:
    """Serves the files of a folder over HTTP with Range requests (one
    range, `bytes=a-b`), counting the body bytes sent. `/denied/...` is a
    403; `/truncated/NAME` announces NAME's size but sends half of any
    range past the first half of it; `/norange/NAME` ignores Range (the
    whole file, status 200)."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self.sent = 0
        self.sent_for: dict[str, int] = {}
        self.requests: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _file(self) -> tuple[pathlib.Path | None, bool]:
                path = self.path.partition("?")[0]
                if path.startswith("/denied/"):
                    self.send_error(403, "Forbidden")
                    return None, False
                truncated = path.startswith("/truncated/")
                if truncated:
                    path = path[len("/truncated") :]
                if path.startswith("/norange/"):
                    path = path[len("/norange") :]
                file = server.root / path.lstrip("/")
                if not file.is_file():
                    self.send_error(404, "Not Found")
                    return None, False
                return file, truncated

            def do_HEAD(self) -> None:
                file, _ = self._file()
                if file is None:
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(file.stat().st_size))
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()

            def do_GET(self) -> None:
                file, truncated = self._file()
                if file is None:
                    return
                data = file.read_bytes()
                wanted = self.headers.get("Range")
                server.requests.append(f"{self.path} {wanted}")
                if self.path.startswith("/norange/"):
                    wanted = None
                match = re.fullmatch(r"bytes=(\d+)-(\d*)", wanted or "")
                if match:
                    start = int(match.group(1))
                    end = int(match.group(2)) + 1 if match.group(2) else len(data)
                    body = data[start:end]
                    if truncated and end > len(data) // 2:
                        body = body[: len(body) // 2]
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{start + len(body) - 1}/{len(data)}")
                else:
                    body = data if not truncated else data[: len(data) // 2]
                    self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()
                self.wfile.write(body)
                server.sent += len(body)
                server.sent_for[self.path] = server.sent_for.get(self.path, 0) + len(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def running(server: Any) -> Iterator[Any]:
    try:
        yield server
    finally:
        server.stop()
