"""What a user coming from polars and pandas meets (issue 43): polars'
option names with polars' meanings, `sheetstream.pandas.read_excel` beside
pandas' own, unknown names told the nearest one, folders as sources,
nothing read with skip_unreadable as an error, a header merged down with
fill_merged, errors by what happened and HTTP failures told apart."""

from __future__ import annotations

import builtins
import pathlib
import socket
import threading
import warnings
import zipfile
from typing import Any, Iterator

import pytest

import sheetstream
import sheetstream.pandas
from conftest import REPO, WriteWorkbook
from shapes_workbook import write_shapes

SALES = REPO / "examples" / "data" / "sales.xlsx"
CORPUS_BINARY = REPO.parent / "shared" / "conformance" / "corpus-binary"
CORPUS_ENCRYPTED = REPO.parent / "shared" / "conformance" / "corpus-encrypted"


def three_sheets(workbook: Any) -> None:
    """`Data` (name, amount), `2` (a sheet named like a position), `Empty`
    (no cell), and a chart sheet `Chart` between `Data` and `2`."""
    data = workbook.add_worksheet("Data")
    data.write_row(0, 0, ["name", "amount"])
    data.write_row(1, 0, ["a", 1])
    data.write_row(2, 0, ["b", 2])
    chart = workbook.add_chart({"type": "line"})
    chart.add_series({"values": "=Data!$B$2:$B$3"})
    workbook.add_chartsheet("Chart").set_chart(chart)
    two = workbook.add_worksheet("2")
    two.write_row(0, 0, ["x"])
    two.write_row(1, 0, [10])
    workbook.add_worksheet("Empty")


# ---------------------------------------------------------------- polars


def test_polars_sheet_id_and_sheet_name(write_workbook: WriteWorkbook) -> None:
    import polars

    path = write_workbook(three_sheets)
    # sheet_id counts from 1 among all sheets, as polars does.
    assert sheetstream.read_excel(path, sheet_id=1)["amount"].to_list() == [1, 2]
    assert sheetstream.read_excel(path, sheet_id=3)["x"].to_list() == [10]
    # sheet_name is a name, never a position: "2" is the sheet named "2".
    assert sheetstream.read_excel(path, sheet_name="2")["x"].to_list() == [10]
    with pytest.raises(sheetstream.SheetNotFoundError):
        sheetstream.read_excel(path, sheet_name="3")
    # sheet_id=0 and lists: a dict of frames by sheet name, as polars'.
    every = sheetstream.read_excel(path, sheet_id=0)
    assert list(every) == ["Data", "2", "Empty"]
    assert isinstance(every["Data"], polars.DataFrame)
    assert list(sheetstream.read_excel(path, sheet_id=[3, 1])) == ["2", "Data"]
    chosen = sheetstream.read_excel(path, sheet_name=["2", "Data"], to="pandas")
    assert list(chosen) == ["2", "Data"] and chosen["2"]["x"].tolist() == [10]
    with pytest.raises(TypeError, match="not both"):
        sheetstream.read_excel(path, sheet_id=1, sheet_name="Data")
    with pytest.raises(TypeError, match="not both"):
        sheetstream.read_excel(path, "Data", sheet_name="Data")
    with pytest.raises(ValueError, match="sheet_id"):
        sheetstream.read_excel(path, sheet_id=-1)
    # read_excel_sheets takes them too.
    assert list(sheetstream.read_excel_sheets(path, sheet_id=[1])) == ["Data"]


def test_polars_options(write_workbook: WriteWorkbook) -> None:
    import polars

    path = write_workbook(three_sheets)
    frame = sheetstream.read_excel(path, has_header=False)
    assert frame.columns == ["column_1", "column_2"] and frame.height == 3
    frame = sheetstream.read_excel(path, schema_overrides={"amount": polars.Float64})
    assert frame.schema["amount"] == polars.Float64
    with pytest.warns(sheetstream.CoercionWarning):
        frame = sheetstream.read_excel(
            path, schema_overrides={"amount": polars.Datetime("us")}, on_mismatch="null"
        )
    assert frame.schema["amount"] == polars.Datetime("ms")
    with pytest.raises(ValueError, match="cast"):
        sheetstream.read_excel(path, schema_overrides={"amount": polars.Int32})
    frame = sheetstream.read_excel([path, SALES], sheet=0, include_file_paths="file", union_by_name=True)
    assert frame["file"].unique(maintain_order=True).to_list() == [str(path), str(SALES)]
    assert sheetstream.read_excel(path, infer_schema_length=1, columns=["amount"]).columns == ["amount"]
    with pytest.raises(TypeError, match="not both"):
        sheetstream.read_excel(path, has_header=True, header_row=0)
    # raise_if_empty: off by default here, polars' NoDataError when asked.
    assert sheetstream.read_excel(path, sheet="Empty").shape == (0, 0)
    with pytest.raises(sheetstream.NoDataError, match="raise_if_empty"):
        sheetstream.read_excel(path, sheet="Empty", raise_if_empty=True)
    with pytest.raises(sheetstream.NoDataError):
        sheetstream.read_excel_sheets(path, raise_if_empty=True)
    # scan_excel takes polars' file column name too.
    lazy = sheetstream.scan_excel(path, include_file_paths="file")
    assert lazy.collect_schema().names() == ["file", "name", "amount"]


def test_unknown_options_name_the_nearest_one(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(three_sheets)
    for wrong, nearest in [
        ("sheet_nmae", "sheet_name"),
        ("header_rows", "header_row"),
        ("schema_overides", "schema_overrides"),
        ("infer_schema_lenght", "infer_schema_length"),
        ("file_colum", "file_column"),
    ]:
        with pytest.raises(TypeError, match=f'did you mean "{nearest}"'):
            sheetstream.read_excel(path, **{wrong: 1})
    with pytest.raises(TypeError, match=r"the options are header_row, skip_rows"):
        sheetstream.open(path).sheet(0, something_else=1)
    # read_excel's own keyword given where it is none.
    with pytest.raises(TypeError, match="keyword of read_excel"):
        sheetstream.scan_excel(path, sheet_name="Data")
    # pandas' and polars' names taken under another name, or not at all.
    for theirs, advice in [
        ("nrows", "n_rows"),
        ("usecols", "columns"),
        ("skiprows", "skip_rows"),
        ("engine", "leave engine out"),
        ("index_col", "set the index"),
    ]:
        with pytest.raises(TypeError, match=advice):
            sheetstream.read_excel(path, **{theirs: 1})


# ---------------------------------------------------------------- pandas


def pandas_book(workbook: Any) -> None:
    """`S`: row 1 empty, a title in row 2, row 3 empty, a header in row 4
    (a, b, c), data in rows 5 and 7 (row 6 empty); a chart sheet; `T`."""
    sheet = workbook.add_worksheet("S")
    sheet.write(1, 0, "Title")
    sheet.write_row(3, 0, ["a", "b", "c"])
    sheet.write_row(4, 0, [1, 2.5, "x"])
    sheet.write_row(6, 0, [3, 4.5, "y"])
    chart = workbook.add_chart({"type": "line"})
    chart.add_series({"values": "=S!$A$5:$A$7"})
    workbook.add_chartsheet("Chart").set_chart(chart)
    other = workbook.add_worksheet("T")
    other.write_row(0, 0, ["x", "y"])
    other.write_row(1, 0, [5, 6])


def same(ours: Any, theirs: Any, as_text: bool = False) -> None:
    """Two pandas frames hold the same names and values (nulls alike);
    `as_text`: compared as text (a column mixing text and numbers is text
    here, Python objects in pandas)."""
    assert [str(name) for name in ours.columns] == [str(name) for name in theirs.columns]
    assert ours.shape == theirs.shape
    left = ours.astype(object).where(ours.notna(), None).values.tolist()
    right = theirs.astype(object).where(theirs.notna(), None).values.tolist()
    if as_text:
        left = [[None if v is None else str(v) for v in row] for row in left]
        right = [[None if v is None else str(v) for v in row] for row in right]
    assert left == right


def test_pandas_entry_reads_as_pandas_does(write_workbook: WriteWorkbook) -> None:
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("openpyxl")
    path = write_workbook(pandas_book)

    def theirs(**options: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pandas.read_excel(path, engine="openpyxl", **options)

    ours = sheetstream.pandas.read_excel
    # header counts from 0 after skiprows; blank rows inside the data are
    # rows of missing values, as pandas reads them.
    for options in [
        {"header": 3},
        {"skiprows": 3},
        {"skiprows": 2, "header": 1},
        {"header": 3, "nrows": 1},
        {"header": 3, "usecols": "A,C"},
        {"header": 3, "usecols": [2, 0]},
        {"header": 3, "usecols": ["c", "a"]},
        {"header": 3, "usecols": lambda name: name != "b"},
        {"header": 3, "dtype": {"a": "float64"}},
        {"sheet_name": 1},
    ]:
        same(ours(path, **options), theirs(**options))
    options = {"sheet_name": "T", "header": None}
    same(ours(path, **options), theirs(**options), as_text=True)
    frame = ours(path, header=3, dtype={"a": "float32", "c": "category"})
    assert str(frame["a"].dtype) == "float32" and str(frame["c"].dtype) == "category"
    same(frame, theirs(header=3, dtype={"a": "float32", "c": "category"}))
    frames = ours(path, sheet_name=[1, "S"], header=0)
    assert list(frames) == [1, "S"]
    assert list(ours(path, sheet_name=None)) == ["S", "T"]
    with pytest.raises(TypeError, match="index_col"):
        ours(path, index_col=0)
    with pytest.raises(TypeError, match="give pandas' usecols"):
        ours(path, columns="A")
    with pytest.raises(TypeError, match="one workbook"):
        ours([path, path])
    with pytest.raises(sheetstream.SheetNotFoundError, match="chart"):
        ours(path, sheet_name=2)


# ---------------------------------------------------------------- folders


def folder_of_reports(root: pathlib.Path, write_workbook: WriteWorkbook) -> pathlib.Path:
    folder = root / "reports"
    (folder / "2023").mkdir(parents=True)

    def book(region: str, amounts: list[int]) -> Any:
        def fill(workbook: Any) -> None:
            sheet = workbook.add_worksheet("Data")
            sheet.write_row(0, 0, ["region", "amount"])
            for row, amount in enumerate(amounts, start=1):
                sheet.write_row(row, 0, [region, amount])

        return fill

    for name, region, amounts in [
        ("south.xlsx", "South", [4, 5]),
        ("north.xlsx", "North", [1]),
        ("2023/east.xlsx", "East", [7]),
    ]:
        written = write_workbook(book(region, amounts))
        (folder / name).write_bytes(written.read_bytes())
    (folder / "notes.txt").write_text("not a workbook")
    (folder / "~$north.xlsx").write_bytes(b"lock")
    (folder / ".hidden.xlsx").write_bytes(b"hidden")
    return folder


def test_a_folder_is_a_source(tmp_path: pathlib.Path, write_workbook: WriteWorkbook) -> None:
    folder = folder_of_reports(tmp_path, write_workbook)
    frame = sheetstream.read_excel(folder, file_column="file")
    assert frame["region"].to_list() == ["North", "South", "South"]
    assert frame["file"].unique(maintain_order=True).to_list() == [
        str(folder / "north.xlsx"),
        str(folder / "south.xlsx"),
    ]
    deep = sheetstream.read_excel(str(folder), recursive=True)
    assert deep["region"].to_list() == ["East", "North", "South", "South"]
    assert sheetstream.scan_excel(folder).collect()["region"].to_list() == ["North", "South", "South"]
    assert sheetstream.scan_excel(folder, recursive=True).collect().height == 4
    # read_excel_sheets of a folder: each sheet name's frame unites the
    # workbooks that have it, as polars' read_excel of many workbooks.
    sheets = sheetstream.read_excel_sheets(folder)
    assert list(sheets) == ["Data"] and sheets["Data"]["amount"].to_list() == [1, 4, 5]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(sheetstream.FileNotFoundError, match="holds no workbook") as caught:
        sheetstream.read_excel(empty)
    assert isinstance(caught.value, builtins.FileNotFoundError)
    assert "recursive=True" in str(caught.value)


def test_nothing_read_is_an_error_listing_the_skipped(tmp_path: pathlib.Path) -> None:
    text = tmp_path / "text.xlsx"
    text.write_text("Item,Amount\n")
    empty = tmp_path / "empty.xlsx"
    empty.write_bytes(b"")
    for read in (sheetstream.read_excel, sheetstream.scan_excel):
        with pytest.raises(sheetstream.NothingReadError, match="nothing read: all 2 files") as caught:
            read([text, empty], skip_unreadable=True)
        assert [item.file for item in caught.value.skipped] == [str(text), str(empty)]
        assert isinstance(caught.value.skipped[0].error, sheetstream.NotAWorkbookError)
        assert isinstance(caught.value, sheetstream.ReadError)
    # One readable among them: read, with the warning.
    with pytest.warns(sheetstream.SkippedWarning):
        frame = sheetstream.read_excel([text, SALES], skip_unreadable=True)
    assert frame.height == 3


def test_a_header_merged_down_is_no_data(tmp_path: pathlib.Path) -> None:
    path = write_shapes(tmp_path / "shapes.xlsx")
    frame = sheetstream.read_excel(path, sheet="Sales", header_row=2, fill_merged=True)
    # Row 4 (Region filled down over Q1, Q2) is the header's, not data.
    assert frame["Region"].to_list()[:2] == ["North", "North"]
    assert frame.columns[0] == "Region"


# ---------------------------------------------------------------- errors


def test_errors_by_what_happened(tmp_path: pathlib.Path) -> None:
    assert sheetstream.NotXlsxError is sheetstream.NotAWorkbookError
    for cls in (
        sheetstream.NotAWorkbookError,
        sheetstream.UnsupportedFormatError,
        sheetstream.EncryptedWorkbookError,
        sheetstream.DamagedWorkbookError,
        sheetstream.LimitError,
        sheetstream.NothingReadError,
    ):
        assert issubclass(cls, sheetstream.ReadError)
    for cls in (sheetstream.ZipError, sheetstream.PackageError, sheetstream.XmlError):
        assert issubclass(cls, sheetstream.DamagedWorkbookError)
    assert issubclass(sheetstream.DamagedCellError, sheetstream.CellError)
    assert issubclass(sheetstream.DamagedCellError, sheetstream.DamagedWorkbookError)
    spreadsheet_ml = tmp_path / "report.xls"
    spreadsheet_ml.write_text(
        '<?xml version="1.0"?><?mso-application progid="Excel.Sheet"?>'
        '<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"/>'
    )
    docx = tmp_path / "letter.xlsx"
    with zipfile.ZipFile(docx, "w") as package:
        package.writestr("word/document.xml", "<w:document/>")
    biff4 = tmp_path / "old.xls"
    biff4.write_bytes(bytes([0x09, 0x04, 6, 0, 0, 0, 0x10, 0, 0, 0]) + bytes(64))
    for path, cls, found in [
        (spreadsheet_ml, sheetstream.UnsupportedFormatError, "an Excel 2003 XML spreadsheet"),
        (docx, sheetstream.NotAWorkbookError, "a Word document (.docx)"),
        (biff4, sheetstream.UnsupportedFormatError, "an Excel 4.0 worksheet (BIFF4"),
    ]:
        with pytest.raises(cls, match=pytest.importorskip("re").escape(found)) as caught:
            sheetstream.open(path)
        assert caught.value.file == str(path)


def test_corpus_files_raise_by_what_happened() -> None:
    if not CORPUS_BINARY.is_dir():
        pytest.skip(f"the binary corpus is absent ({CORPUS_BINARY})")
    biff = [
        path
        for path in sorted(CORPUS_BINARY.rglob("*"))
        if path.is_file() and path.read_bytes()[:2] in (b"\x09\x00", b"\x09\x02", b"\x09\x04", b"\x09\x08")
    ]
    assert len(biff) >= 12
    for path in biff:
        with pytest.raises(sheetstream.UnsupportedFormatError, match="BIFF"):
            sheetstream.open(path)
    encrypted = CORPUS_ENCRYPTED / "calamine" / "pass_protected_xlsb.xlsb"
    if encrypted.is_file():
        # An encrypted .xlsb was a NotXlsxError.
        with pytest.raises(sheetstream.EncryptedWorkbookError, match="encrypted workbook"):
            sheetstream.open(encrypted)


# ---------------------------------------------------------------- HTTP


class _Silent:
    """A server on 127.0.0.1 that accepts connections and never answers."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(8)
        self.port = self.socket.getsockname()[1]
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.held.append(connection)

    def close(self) -> None:
        self.socket.close()
        for connection in self.held:
            connection.close()


@pytest.fixture
def silent() -> Iterator[_Silent]:
    server = _Silent()
    yield server
    server.close()


def test_http_failures_are_told_apart(tmp_path: pathlib.Path, silent: _Silent) -> None:
    pytest.importorskip("fsspec")
    aiohttp = pytest.importorskip("aiohttp")
    from servers import RangeServer, free_port, running

    (tmp_path / "book.xlsx").write_bytes(SALES.read_bytes())
    for server in running(RangeServer(tmp_path)):
        url = server.url
        with pytest.raises(sheetstream.FileNotFoundError, match="404") as missing:
            sheetstream.open(f"{url}/gone.xlsx")
        assert isinstance(missing.value, builtins.FileNotFoundError)
        assert missing.value.file == f"{url}/gone.xlsx"
        with pytest.raises(sheetstream.PermissionError, match="403") as denied:
            sheetstream.open(f"{url}/denied/book.xlsx")
        assert isinstance(denied.value, builtins.PermissionError)
        assert isinstance(denied.value, sheetstream.ReadError)
    refused = f"http://127.0.0.1:{free_port()}/book.xlsx"
    with pytest.raises(sheetstream.ConnectionError, match="cannot connect") as caught:
        sheetstream.open(refused)
    assert isinstance(caught.value, builtins.ConnectionError)
    assert not isinstance(caught.value, builtins.FileNotFoundError)
    quick = {"client_kwargs": {"timeout": aiohttp.ClientTimeout(total=1)}}
    with pytest.raises(sheetstream.TimeoutError, match="in time") as late:
        sheetstream.open(f"http://127.0.0.1:{silent.port}/book.xlsx", storage_options=quick)
    assert isinstance(late.value, builtins.TimeoutError)
