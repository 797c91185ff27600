"""Errors opening a file name it (err.file and the message), in one read
and among many; a missing file is a FileNotFoundError, a directory an
IsADirectoryError; `~` is expanded; skip_unreadable skips and reports."""

from __future__ import annotations

import builtins
import pathlib
import warnings
import zipfile
from typing import Any, Callable

import pytest

import sheetstream
from conftest import REPO, WriteWorkbook

SALES = REPO / "examples" / "data" / "sales.xlsx"
OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def unreadable_files(folder: pathlib.Path) -> dict[str, tuple[pathlib.Path, type, str]]:
    """Each kind of file that cannot be opened: its path, the class it
    raises and a piece of its message."""
    (folder / "folder.xlsx").mkdir()
    (folder / "empty.xlsx").write_bytes(b"")
    (folder / "truncated.xlsx").write_bytes(SALES.read_bytes()[:3000])
    (folder / "text.xlsx").write_text("Item,Amount\napples,10\n")
    (folder / "encrypted.xlsx").write_bytes(OLE2 + bytes(1024))
    (folder / "legacy.xls").write_bytes(OLE2 + bytes(1024))
    # An OpenDocument text file (an .ods is read; an .odt is refused as
    # what it is).
    with zipfile.ZipFile(folder / "letter.ods", "w") as odt:
        odt.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        odt.writestr(
            "content.xml",
            '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>',
        )
    return {
        "missing": (folder / "absent.xlsx", sheetstream.FileNotFoundError, "No such file"),
        "directory": (folder / "folder.xlsx", sheetstream.IsADirectoryError, "directory"),
        "empty": (folder / "empty.xlsx", sheetstream.NotXlsxError, "empty"),
        "truncated": (folder / "truncated.xlsx", sheetstream.NotXlsxError, "truncated"),
        "text": (folder / "text.xlsx", sheetstream.NotXlsxError, "ZIP signature"),
        "encrypted": (folder / "encrypted.xlsx", sheetstream.NotXlsxError, "encrypted"),
        "xls": (folder / "legacy.xls", sheetstream.NotXlsxError, "OLE2"),
        "odt": (folder / "letter.ods", sheetstream.PackageError, "OpenDocument text"),
    }


KINDS = ["missing", "directory", "empty", "truncated", "text", "encrypted", "xls", "odt"]

READS: dict[str, Callable[[pathlib.Path], Any]] = {
    "open": lambda path: sheetstream.open(path),
    "open str": lambda path: sheetstream.open(str(path)),
    "read_excel": lambda path: sheetstream.read_excel(path),
    "read_excel list": lambda path: sheetstream.read_excel([SALES, path], sheet=None),
    # A pattern that matches the one file: `[a]bsent.xlsx`.
    "read_excel glob": lambda path: sheetstream.read_excel(
        [SALES, str(path.parent / f"[{path.name[0]}]{path.name[1:]}")]
    ),
}


@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("kind", KINDS)
def test_errors_at_open_name_the_file(tmp_path: pathlib.Path, kind: str, read: str) -> None:
    path, cls, detail = unreadable_files(tmp_path)[kind]
    if read == "read_excel glob" and kind in ("missing", "directory"):
        # A pattern that matches no file (folders are not files): a
        # FileNotFoundError naming the pattern.
        pattern = str(path.parent / f"[{path.name[0]}]{path.name[1:]}")
        with pytest.raises(sheetstream.FileNotFoundError) as caught:
            READS[read](path)
        assert caught.value.file == pattern
        assert pattern in str(caught.value)
        assert isinstance(caught.value, builtins.FileNotFoundError)
        return
    if read.startswith("read_excel") and kind == "directory":
        # read_excel reads a folder's workbooks; this one holds none.
        cls, detail = sheetstream.FileNotFoundError, "holds no workbook"
    with pytest.raises(cls) as caught:
        READS[read](path)
    err = caught.value
    assert isinstance(err, sheetstream.Error)
    assert err.file == str(path)
    assert str(path) in str(err)
    assert detail in str(err)
    if kind == "missing":
        assert isinstance(err, builtins.FileNotFoundError)
        assert isinstance(err, sheetstream.ReadError)
        assert err.errno == 2
    elif kind == "directory":
        assert isinstance(err, (builtins.IsADirectoryError, builtins.FileNotFoundError))
        assert isinstance(err, sheetstream.ReadError)
    else:
        assert not isinstance(err, OSError)


def test_a_missing_file_is_caught_as_pandas_and_polars_users_catch_it(tmp_path: pathlib.Path) -> None:
    for read in (sheetstream.open, sheetstream.read_excel, sheetstream.read_excel_sheets):
        try:
            read(tmp_path / "absent.xlsx")
        except FileNotFoundError as err:
            assert "absent.xlsx" in str(err)
        else:
            pytest.fail("no error")
    # The classes stay out of __all__: a star import keeps the built-ins.
    assert "FileNotFoundError" not in sheetstream.__all__
    assert "IsADirectoryError" not in sheetstream.__all__
    assert issubclass(sheetstream.FileNotFoundError, sheetstream.ReadError)
    assert sheetstream.FileNotFoundError.__module__ == "sheetstream"


def test_bytes_that_are_not_a_workbook_name_no_file() -> None:
    with pytest.raises(sheetstream.NotXlsxError) as caught:
        sheetstream.open(b"hello")
    assert caught.value.file is None
    # Among many, bytes are labelled by their length.
    with pytest.raises(sheetstream.NotXlsxError) as caught:
        sheetstream.read_excel([SALES, b"hello"])
    assert caught.value.file == "<5 bytes>"
    assert "(at file <5 bytes>)" in str(caught.value)


def test_tilde_is_expanded(write_workbook: WriteWorkbook, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fill(workbook: Any) -> None:
        sheet = workbook.add_worksheet("Home")
        sheet.write_row(0, 0, ["where", "n"])
        sheet.write_row(1, 0, ["home", 7])

    home = tmp_path / "home"
    (home / "books").mkdir(parents=True)
    write_workbook(fill).rename(home / "books" / "mine.xlsx")
    monkeypatch.setenv("HOME", str(home))
    assert sheetstream.open("~/books/mine.xlsx").sheet_names == ["Home"]
    assert sheetstream.open(pathlib.Path("~/books/mine.xlsx")).sheet_names == ["Home"]
    frame = sheetstream.read_excel("~/books/mine.xlsx")
    assert frame.rows() == [("home", 7)]
    # Globs and lists too; the file column shows the expanded path.
    frame = sheetstream.read_excel(["~/books/*.xlsx"], file_column="file")
    assert frame.rows() == [(str(home / "books" / "mine.xlsx"), "home", 7)]
    assert list(sheetstream.read_excel_sheets("~/books/mine.xlsx")) == ["Home"]
    # A missing one names the expanded path.
    with pytest.raises(sheetstream.FileNotFoundError) as caught:
        sheetstream.open("~/books/absent.xlsx")
    assert caught.value.file == str(home / "books" / "absent.xlsx")


def test_skip_unreadable_skips_files_and_sheets_and_reports_them(
    write_workbook: WriteWorkbook, tmp_path: pathlib.Path
) -> None:
    def fill(workbook: Any) -> None:
        sheet = workbook.add_worksheet("Data")
        sheet.write_row(0, 0, ["Item", "Amount"])
        sheet.write_row(1, 0, ["figs", 5])

    good = write_workbook(fill)
    files = unreadable_files(tmp_path)
    missing, text = files["missing"][0], files["text"][0]
    sources = [missing, good, text, SALES]
    # Without it, the first unreadable file raises.
    with pytest.raises(sheetstream.FileNotFoundError):
        sheetstream.read_excel(sources, sheet="Data", union_by_name=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = sheetstream.read_excel(
            sources, sheet="Data", union_by_name=True, file_column="file",
            skip_unreadable=True, columns=["Item", "Amount"],
        )
    assert frame.rows() == [
        (str(good), "figs", 5),
        (str(SALES), "apples", 10),
        (str(SALES), "pears", 20),
        (str(SALES), "plums", 30),
    ]
    skipped_warnings = [w for w in caught if issubclass(w.category, sheetstream.SkippedWarning)]
    assert len(skipped_warnings) == 1
    warning = skipped_warnings[0]
    assert issubclass(warning.category, UserWarning)
    assert warning.filename == __file__  # points at the caller
    message = warning.message
    assert isinstance(message, sheetstream.SkippedWarning)
    assert "skipped 2 unreadable files or sheets" in str(message)
    assert str(missing) in str(message) and str(text) in str(message)
    skipped = message.skipped
    assert [(s.file, s.sheet) for s in skipped] == [(str(missing), None), (str(text), None)]
    assert isinstance(skipped[0].error, sheetstream.FileNotFoundError)
    assert isinstance(skipped[1].error, sheetstream.NotXlsxError)
    assert skipped[1].error.file == str(text)
    assert "SkippedSheet(file=" in repr(skipped[0])


def test_skip_unreadable_skips_a_workbook_without_the_sheet(
    write_workbook: WriteWorkbook,
) -> None:
    def data(workbook: Any) -> None:
        workbook.add_worksheet("Data").write_row(0, 0, ["Item"])
        workbook.worksheets()[0].write_row(1, 0, ["kiwi"])

    def other(workbook: Any) -> None:
        workbook.add_worksheet("Other").write_row(0, 0, ["Item"])

    has, lacks = write_workbook(data), write_workbook(other)
    with pytest.raises(sheetstream.SheetNotFoundError):
        sheetstream.read_excel([has, lacks], sheet="Data")
    with pytest.warns(sheetstream.SkippedWarning, match="1 unreadable file or sheet") as caught:
        frame = sheetstream.read_excel([has, lacks], sheet="Data", skip_unreadable=True)
    assert frame.rows() == [("kiwi",)]
    skipped = caught[0].message.skipped  # type: ignore[union-attr]
    assert [s.file for s in skipped] == [str(lacks)]
    assert isinstance(skipped[0].error, sheetstream.SheetNotFoundError)


def test_nothing_skipped_no_warning(write_workbook: WriteWorkbook) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = sheetstream.read_excel(SALES, skip_unreadable=True)
    assert frame.height == 3


def test_skip_unreadable_skips_a_damaged_sheet_and_names_it(tmp_path: pathlib.Path) -> None:
    from conftest import number_rows, write_plain_package

    def damaged() -> Any:
        for index, row in enumerate(number_rows(20, 2)):
            # Row 11: an unclosed cell.
            yield '<row r="11"><c r="A11"><v>1</v><c r="B11"><v>2</v></c></row>' if index == 10 else row

    path = write_plain_package(
        tmp_path / "mixed.xlsx", {"Good": number_rows(3, 2), "Bad": damaged()}
    )
    with pytest.raises(sheetstream.XmlError):
        sheetstream.read_excel(path, sheet=None)
    with pytest.warns(sheetstream.SkippedWarning, match=r"sheet 'Bad'") as caught:
        frame = sheetstream.read_excel(path, sheet=None, skip_unreadable=True, sheet_column="sheet")
    assert frame.rows() == [("Good", 10.5, 11.5), ("Good", 20.5, 21.5), ("Good", 30.5, 31.5)]
    skipped = caught[0].message.skipped  # type: ignore[union-attr]
    assert [(s.file, s.sheet) for s in skipped] == [(str(path), "Bad")]
    error = skipped[0].error
    assert isinstance(error, sheetstream.XmlError)
    assert (error.file, error.sheet, error.part) == (str(path), "Bad", "xl/worksheets/sheet2.xml")
