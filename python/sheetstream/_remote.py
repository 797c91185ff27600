"""Workbooks in object stores and behind URLs, read by byte ranges.

A URL (``s3://``, ``gs://``, ``az://``/``abfs://``, ``http(s)://`` or any
other protocol fsspec knows) becomes a :class:`RemoteObject`: its size and
a ``read_range(start, end)`` that the Rust reader calls for each ranged
request (fsspec's ``cat_file``, which keeps no cursor, so that worker
threads read different sheets at once). A seekable binary file object
becomes one too, its seek and read under a lock. fsspec is imported only
when a URL is given.
"""

import builtins
import os
import threading
from typing import Any, Optional

_PROTOCOL_PACKAGES = {
    "s3": "s3fs",
    "s3a": "s3fs",
    "gs": "gcsfs",
    "gcs": "gcsfs",
    "az": "adlfs",
    "abfs": "adlfs",
    "abfss": "adlfs",
    "adl": "adlfs",
    "http": "aiohttp",
    "https": "aiohttp",
}


def is_url(source: Any) -> bool:
    """Whether ``source`` is a URL (a local path never imports fsspec;
    ``C://`` is a Windows drive)."""
    if not isinstance(source, str):
        return False
    head, sep, _ = source.partition("://")
    return (
        bool(sep)
        and len(head) > 1
        and head[0].isalpha()
        and all(ch.isalnum() or ch in "+-." for ch in head)
    )


def _protocol(url: str) -> str:
    return url.partition("://")[0].lower()


def _import_fsspec(url: str) -> Any:
    try:
        import fsspec
    except ImportError:
        package = _PROTOCOL_PACKAGES.get(_protocol(url))
        extra = f" {package}" if package else ""
        raise ImportError(
            f"reading {url} needs fsspec: pip install fsspec{extra}"
        ) from None
    return fsspec


def filesystem(url: str, storage_options: Optional[dict[str, Any]]) -> tuple[Any, str]:
    """The fsspec filesystem and the path within it for ``url``; an
    ImportError naming the package to install when its protocol's is
    missing."""
    fsspec = _import_fsspec(url)
    try:
        fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
        return fs, str(path)
    except ImportError as err:
        package = _PROTOCOL_PACKAGES.get(_protocol(url))
        hint = f"pip install fsspec {package}" if package else str(err)
        raise ImportError(f"reading {url} needs {hint} ({err})") from err
    except ValueError as err:
        raise ValueError(f"{url}: {err}") from err


def _named(err: BaseException, url: str) -> BaseException:
    """``err`` again, its message naming ``url`` (a missing key, a denied
    bucket), as sheetstream's errors name a file; a failure to reach the
    object is told by what happened (:func:`_failure`): a
    ``sheetstream.FileNotFoundError`` (HTTP 404 and 410 too),
    ``PermissionError`` (401, 403), ``ConnectionError`` (refused, reset,
    no such host) or ``TimeoutError``, each a ``sheetstream.ReadError``
    and the built-in of its name, with ``file`` set to the URL."""
    from . import _sheetstream

    failure = _failure(err)
    if failure is not None:
        kind, reason = failure
        classes = {
            "missing": (_sheetstream.FileNotFoundError, 2),
            "denied": (_sheetstream.PermissionError, 13),
            "connection": (_sheetstream.ConnectionError, 111),
            "timeout": (_sheetstream.TimeoutError, 110),
        }
        cls, errno = classes[kind]
        made: Any = cls(f"{url}: {reason}")
        made.errno = errno
        made.file = url
        return made
    message = f"{url}: {err}" if url not in str(err) else str(err)
    if isinstance(err, OSError):
        return OSError(err.errno, message)
    return type(err)(message) if _plain_args(err) else err


def _failure(err: BaseException) -> Optional[tuple[str, str]]:
    """What kept an object from being read, from the error fsspec raised
    and the ones it was raised from (its HTTP file system wraps every
    failure to reach a URL in a FileNotFoundError): ``missing``,
    ``denied``, ``connection`` or ``timeout``, and the reason in words;
    None for anything else."""
    import asyncio

    chain: list[BaseException] = []
    seen: Optional[BaseException] = err
    while seen is not None and seen not in chain and len(chain) < 8:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for link in chain:
        status = getattr(link, "status", None)
        if isinstance(status, int) and status >= 400:
            words = getattr(link, "message", "") or ""
            reason = f"HTTP {status} {words}".rstrip()
            if status in (404, 410):
                return "missing", f"{reason}: no such object"
            if status in (401, 403):
                return "denied", f"{reason}: access denied"
            return None
    for link in chain:
        if isinstance(link, (TimeoutError, asyncio.TimeoutError)) or "Timeout" in type(link).__name__:
            return "timeout", f"no answer in time ({type(link).__name__})"
    for link in chain:
        if isinstance(link, builtins.ConnectionError) or "Connector" in type(link).__name__:
            detail = str(link) or type(link).__name__
            return "connection", f"cannot connect: {detail}"
    if isinstance(err, builtins.PermissionError):
        return "denied", f"access denied ({err})"
    if isinstance(err, builtins.FileNotFoundError):
        detail = str(err.args[-1]) if err.args else ""
        known = detail and "://" not in detail and not detail.startswith("/")
        return "missing", f"no such object ({detail})" if known else "no such object"
    return None


def _plain_args(err: BaseException) -> bool:
    try:
        type(err)("x")
    except Exception:
        return False
    return True


def _protocol_url(fs: Any, path: str) -> str:
    protocol = fs.protocol[0] if isinstance(fs.protocol, (tuple, list)) else fs.protocol
    if "://" in path:
        return path
    return f"{protocol}://{path}"


class RemoteObject:
    """An object read by ranges: ``url`` (how errors and the file column
    name it), ``size``, ``read_range(start, end)`` (bytes ``start..end``)."""

    def __init__(self, fs: Any, path: str, url: str, size: int) -> None:
        self._fs = fs
        self._path = path
        self.url = url
        self.size = size

    def read_range(self, start: int, end: int) -> bytes:
        whole: Optional[bytes] = getattr(self, "_whole", None)
        if whole is not None:
            return whole[start:end]
        try:
            if start == 0 and end >= self.size:
                data = self._fs.cat_file(self._path)
            else:
                data = self._fs.cat_file(self._path, start=start, end=end)
        except Exception as err:
            raise _named(err, self.url) from err
        if len(data) > end - start:
            if len(data) != self.size:
                raise OSError(
                    f"{self.url}: asked for bytes {start}..{end}, the server sent {len(data)}"
                )
            # A server that ignores Range requests sent the whole object:
            # kept, and every later range cut from it.
            self._whole = bytes(data)
            return self._whole[start:end]
        return bytes(data)

    def __repr__(self) -> str:
        return f"<sheetstream remote object {self.url} ({self.size} bytes)>"


class FileRanges:
    """A seekable binary file object read by ranges, its seek and read
    under a lock (worker threads share the one cursor)."""

    def __init__(self, file: Any, url: str, size: int) -> None:
        self._file = file
        self._lock = threading.Lock()
        self.url = url
        self.size = size

    def read_range(self, start: int, end: int) -> bytes:
        with self._lock:
            self._file.seek(start)
            parts = []
            wanted = end - start
            while wanted > 0:
                data = self._file.read(wanted)
                if not data:
                    break
                parts.append(data)
                wanted -= len(data)
        return b"".join(parts)


def open_url(url: str, storage_options: Optional[dict[str, Any]] = None) -> Optional[RemoteObject]:
    """A URL as a :class:`RemoteObject` (its size asked for once; errors
    name the URL), or None for a string that is no URL."""
    if not is_url(url):
        return None
    fs, path = filesystem(url, storage_options)
    return _object(fs, path, url)


def _object(fs: Any, path: str, url: str) -> RemoteObject:
    info = _info(fs, path, url)
    if info.get("type") == "directory":
        raise IsADirectoryError(21, f"{url}: is a folder (a prefix), not a workbook")
    return _object_of(fs, path, url, info)


def _info(fs: Any, path: str, url: str) -> dict[str, Any]:
    try:
        info: dict[str, Any] = fs.info(path)
    except Exception as err:
        raise _named(err, url) from err
    return info


def _object_of(fs: Any, path: str, url: str, info: dict[str, Any]) -> RemoteObject:
    size = info.get("size")
    if size is None:
        # No size (an HTTP server without Content-Length): fetched whole.
        try:
            data = fs.cat_file(path)
        except Exception as failed:
            raise _named(failed, url) from failed
        return _WholeObject(url, bytes(data))
    return RemoteObject(fs, path, url, int(size))


class _WholeObject(RemoteObject):
    def __init__(self, url: str, data: bytes) -> None:
        self.url = url
        self.size = len(data)
        self._data = data

    def read_range(self, start: int, end: int) -> bytes:
        return self._data[start:end]


def glob_url(url: str, storage_options: Optional[dict[str, Any]] = None) -> list[RemoteObject]:
    """The objects a URL pattern matches (``*``, ``?``, ``[``, ``**``
    over a bucket prefix as over a folder), sorted; a pattern that matches
    nothing is a FileNotFoundError naming it."""
    fs, path = filesystem(url, storage_options)
    try:
        found = fs.glob(path, detail=True)
    except Exception as err:
        raise _named(err, url) from err
    objects = []
    for name in sorted(found):
        info = found[name]
        if info.get("type") == "directory":
            continue
        size = info.get("size")
        full = _protocol_url(fs, name)
        if size is None:
            objects.append(_object(fs, name, full))
        else:
            objects.append(RemoteObject(fs, name, full, int(size)))
    if not objects:
        from . import _sheetstream

        missing = _sheetstream.FileNotFoundError(2, f"no object matches the pattern {url!r}")
        missing.file = url
        raise missing
    return objects


def has_magic(url: str) -> bool:
    path = url.partition("://")[2]
    # An HTTP URL's query string is no pattern.
    if _protocol(url) in ("http", "https"):
        path = path.partition("?")[0]
    return any(ch in path for ch in "*?[")


def resolve(source: Any, storage_options: Optional[dict[str, Any]], recursive: bool = False) -> Any:
    """A URL as one :class:`RemoteObject`, or a list of them for a
    pattern or a prefix (a folder: its workbooks by name, with
    ``recursive`` those under it at any depth); anything else as it is."""
    if not is_url(source):
        return source
    if has_magic(source):
        return glob_url(source, storage_options)
    fs, path = filesystem(source, storage_options)
    info = _info(fs, path, source)
    if info.get("type") == "directory":
        return _prefix(fs, path, source, recursive)
    return _object_of(fs, path, source, info)


def _prefix(fs: Any, path: str, url: str, recursive: bool) -> list[RemoteObject]:
    """The workbooks under a prefix, as a folder's are listed
    (``WORKBOOK_EXTENSIONS``, names starting with ``.`` or ``~$`` left
    out), sorted; none is a ``sheetstream.FileNotFoundError``."""
    from . import _sheetstream

    try:
        found = fs.find(path, maxdepth=None if recursive else 1, detail=True)
    except Exception as err:
        raise _named(err, url) from err
    objects = []
    for name in sorted(found):
        info = found[name]
        base = name.rstrip("/").rsplit("/", 1)[-1]
        if info.get("type") == "directory" or not _is_workbook_name(base):
            continue
        full = _protocol_url(fs, name)
        size = info.get("size")
        if size is None:
            objects.append(_object(fs, name, full))
        else:
            objects.append(RemoteObject(fs, name, full, int(size)))
    if not objects:
        missing = _sheetstream.FileNotFoundError(
            2, f"{url}: the prefix holds no workbook (files ending in ."
            + ", .".join(_sheetstream.WORKBOOK_EXTENSIONS) + ")"
        )
        missing.file = url
        raise missing
    return objects


def _is_workbook_name(name: str) -> bool:
    """As a folder's listing keeps a file: a workbook's extension, not
    hidden, not one of Excel's lock files."""
    from . import _sheetstream

    if name.startswith((".", "~$")) or "." not in name:
        return False
    return name.rsplit(".", 1)[1].lower() in _sheetstream.WORKBOOK_EXTENSIONS


def file_ranges(file: Any) -> Optional[Any]:
    """A seekable binary file object as a range object, or None (read it
    whole): fsspec's file objects through their filesystem (no shared
    cursor), others through :class:`FileRanges`."""
    fs = getattr(file, "fs", None)
    path = getattr(file, "path", None)
    size = getattr(file, "size", None)
    if fs is not None and isinstance(path, str) and isinstance(size, int) and hasattr(fs, "cat_file"):
        return RemoteObject(fs, path, _protocol_url(fs, path), size)
    try:
        if not file.seekable() or not isinstance(file.read(0), (bytes, bytearray)):
            return None  # read whole (a text file object is refused there)
        here = file.tell()
        size = file.seek(0, os.SEEK_END)
        file.seek(here)
    except Exception:
        return None
    if not isinstance(size, int) or size - here <= 0:
        return None
    if here != 0:
        # Read from where the file object stands, as read() would.
        return None
    # Labelled as bytes read from a file object always were.
    return FileRanges(file, f"<{size} bytes>", size)
