"""Encrypted (password-protected) workbooks through the Python package:
``password=`` on ``open``, ``read_excel``, ``read_excel_sheets`` and
``scan_excel`` (a str, a list tried in order, a callable given each file's
path), Excel's default password tried unasked, the exception classes, and
the integrity check (``Workbook.integrity``, ``verify_integrity``).

The workbooks are cases of the encrypted conformance corpus
(../shared/conformance/corpus-encrypted), each read against the plain
workbook it was encrypted from (../shared/conformance/corpus and
corpus-binary)."""

from __future__ import annotations

import pathlib
import shutil

import polars
import pytest

import sheetstream
from conftest import CORPUS

ENCRYPTED = CORPUS.parent / "corpus-encrypted"
BINARY = CORPUS.parent / "corpus-binary"

# (encrypted case, the plain workbook it was encrypted from)
PAIRS = [
    ("generated/agile-aes256-sha512.xlsx", CORPUS / "tidyxl/examples-gnumeric.xlsx"),
    ("generated/agile-aes128-sha1.xlsx", CORPUS / "tidyxl/extdata__examples_xlsx.xlsx"),
    ("generated/standard-aes128_xlsb.xlsb", BINARY / "polars/example_2.xlsb"),
    ("generated/xls-rc4-cryptoapi-128.xls", BINARY / "csvkit/sheets.xls"),
    ("generated/xls-xor.xls", BINARY / "csvkit/sheets.xls"),
]


def case(name: str) -> tuple[pathlib.Path, str]:
    """A case and its password."""
    if not ENCRYPTED.is_dir():
        pytest.skip(f"the encrypted corpus is absent ({ENCRYPTED})")
    path = ENCRYPTED / name
    return path, path.with_suffix(".password").read_text(encoding="utf-8")


def frames(source: object, **options: object) -> dict[str, polars.DataFrame]:
    return sheetstream.read_excel_sheets(source, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("name,plain", PAIRS, ids=[name for name, _ in PAIRS])
def test_an_encrypted_workbook_reads_as_its_plain_original(name: str, plain: pathlib.Path) -> None:
    path, password = case(name)
    if not plain.is_file():
        pytest.skip(f"{plain} is absent")
    expected = frames(plain)
    got = frames(path, password=password)
    assert list(got) == list(expected)
    for sheet, frame in expected.items():
        assert got[sheet].equals(frame), sheet
    # From bytes too, and the biggest sheet through read_excel.
    biggest = max(expected, key=lambda sheet: expected[sheet].height)
    assert expected[biggest].height > 0
    got = sheetstream.read_excel(path.read_bytes(), biggest, password=password)
    assert got.equals(expected[biggest])


def test_missing_and_wrong_passwords_raise_their_own_classes() -> None:
    path, password = case("generated/agile-aes256-sha512.xlsx")
    with pytest.raises(sheetstream.PasswordRequiredError) as required:
        sheetstream.open(path)
    assert required.value.file == str(path)
    assert str(path) in str(required.value)
    assert "a password is required" in str(required.value)
    with pytest.raises(sheetstream.PasswordIncorrectError) as wrong:
        sheetstream.read_excel(path, password="not it")
    assert "the password is incorrect" in str(wrong.value)
    assert "ZIP" not in str(wrong.value)
    for cls in (
        sheetstream.PasswordRequiredError,
        sheetstream.PasswordIncorrectError,
        sheetstream.UnsupportedEncryptionError,
        sheetstream.IntegrityError,
    ):
        assert issubclass(cls, sheetstream.EncryptionError)
        assert issubclass(cls, sheetstream.Error)
    unsupported, _ = case("generated/agile-spincount-1e9.xlsx")
    with pytest.raises(sheetstream.UnsupportedEncryptionError, match="spinCount"):
        sheetstream.open(unsupported, password="whatever")


def test_every_form_of_password() -> None:
    path, password = case("generated/agile-aes256-sha512.xlsx")
    seen: list[object] = []

    def ask(file: object) -> str:
        seen.append(file)
        return password

    for given in (password, ["wrong", password], (password,), ask):
        with sheetstream.open(path, password=given) as workbook:
            assert workbook.encryption == "Agile AES-256/SHA-512"
    assert seen == [str(path)]
    # Bytes: the callable is given None.
    seen.clear()
    sheetstream.open(path.read_bytes(), password=ask).close()
    assert seen == [None]
    with pytest.raises(sheetstream.PasswordRequiredError):
        sheetstream.open(path, password=lambda file: None)
    with pytest.raises(TypeError, match="password must be"):
        sheetstream.open(path, password=42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="list of passwords holds str"):
        sheetstream.open(path, password=["a", 1])  # type: ignore[list-item]
    # A plain workbook opens whatever password is given.
    with sheetstream.open(CORPUS / "tidyxl/examples-gnumeric.xlsx", password="x") as plain:
        assert plain.encryption is None
        assert plain.integrity == "not encrypted"


def test_excels_default_password_opens_unasked() -> None:
    path = ENCRYPTED / "generated/agile-aes256-sha512-velvet.xlsx"
    if not path.is_file():
        pytest.skip("the encrypted corpus is absent")
    with sheetstream.open(path) as workbook:
        assert workbook.encryption == "Agile AES-256/SHA-512"
    assert sheetstream.read_excel(path).height > 0


def test_a_glob_of_workbooks_with_different_passwords(tmp_path: pathlib.Path) -> None:
    first, first_password = case("generated/agile-aes256-sha512.xlsx")
    second, second_password = case("generated/xls-rc4-cryptoapi-128.xls")
    shutil.copy(first, tmp_path / "a.xlsx")
    shutil.copy(second, tmp_path / "b.xls")
    shutil.copy(CORPUS / "tidyxl/examples-gnumeric.xlsx", tmp_path / "c.xlsx")
    passwords = {"a.xlsx": first_password, "b.xls": second_password}

    def password(file: str | None) -> str | None:
        assert file is not None
        return passwords.get(pathlib.Path(file).name)

    # Every worksheet of each (the .xls's first sheet is empty).
    frame = sheetstream.read_excel(
        str(tmp_path / "*.xls*"),
        None,
        password=password,
        file_column="file",
        union_by_name=True,
    )
    assert sorted(pathlib.Path(name).name for name in frame["file"].unique()) == [
        "a.xlsx",
        "b.xls",
        "c.xlsx",
    ]
    scanned = sheetstream.scan_excel(
        str(tmp_path / "*.xls*"),
        None,
        password=password,
        file_column="file",
        union_by_name=True,
    ).collect()
    assert scanned.height == frame.height
    with pytest.raises(sheetstream.PasswordRequiredError):
        sheetstream.read_excel(str(tmp_path / "*.xls*"))


def test_the_integrity_check_runs_once_every_worksheet_was_read() -> None:
    path, password = case("generated/agile-aes256-sha512.xlsx")
    with sheetstream.open(path, password=password) as workbook:
        assert workbook.integrity == "not verified"
        worksheets = [info.name for info in workbook.sheets if info.kind == "worksheet"]
        assert len(worksheets) == 3
        first = workbook.sheet(worksheets[0])
        first.to_arrow()
        assert workbook.integrity == "not verified"
        assert first.report.integrity == "not verified"
        # (Small sheets: their sample reads them to the end.)
        for name in worksheets[1:]:
            workbook.sheet(name).to_arrow()
        assert workbook.integrity == "verified"
        assert first.report.integrity == "verified"
    with sheetstream.open(path, password=password, verify_integrity=True) as workbook:
        assert workbook.integrity == "verified"
    with sheetstream.open(path, password=password) as workbook:
        assert workbook.verify_integrity() == "verified"
    standard, password = case("generated/standard-aes128_xlsb.xlsb")
    with sheetstream.open(standard, password=password) as workbook:
        assert workbook.verify_integrity() == "not recorded"


def test_a_changed_package_fails_the_check_but_not_a_read_of_one_sheet() -> None:
    path, password = case("generated/agile-tampered-data.xlsx")
    with sheetstream.open(path, password=password) as workbook:
        first = workbook.sheet_names[0]
    # One sheet: no pass over the whole file.
    assert sheetstream.read_excel(path, first, password=password).height > 0
    with pytest.raises(sheetstream.IntegrityError) as failed:
        frames(path, password=password, sheet=None)
    assert "the integrity check failed" in str(failed.value)
    with pytest.raises(sheetstream.IntegrityError):
        sheetstream.open(path, password=password, verify_integrity=True)
    with sheetstream.open(path, password=password) as workbook:
        with pytest.raises(sheetstream.IntegrityError):
            workbook.verify_integrity()
