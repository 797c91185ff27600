#!/usr/bin/env python3
"""Round trip of encrypted workbooks written by other tools: each plain
workbook is encrypted, then `sheetstream cells` of the encrypted file (its
password given) must print exactly what it prints for the plain one.

- msoffcrypto-tool (pip) encrypts .xlsx packages as Office does today
  (ECMA-376 Agile, AES-256, SHA-512, 100,000 rounds), with a password and
  with Excel's default password VelvetSweatshop (which must open unasked);
- LibreOffice (soffice) saves each workbook as .xls with a password (RC4,
  what its binary filter writes), and once without one for the plain side
  of the comparison (the conversion itself may change values). It is
  driven by a Basic macro in a throwaway profile: the command line has no
  way to pass a password. (Its OOXML filter given EncryptionData hung
  headless in LibreOffice 7.4: the Agile round trip is msoffcrypto-tool's.)

The plain workbooks: examples/data/*.xlsx and one written here with
xlsxwriter (three sheets; numbers, text with non-ASCII characters, dates,
booleans; 3,000 rows). A wrong password must be refused as incorrect.

    python tests/formats/encrypted_roundtrip.py --bin target/release/sheetstream
"""

import argparse
import datetime
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

PASSWORD = "Round trïp 🔒"
MACRO = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd">
<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Roundtrip" script:language="StarBasic">
Sub Save(source As String, target As String, filter As String, password As String)
  Dim load(0) As New com.sun.star.beans.PropertyValue
  load(0).Name = &quot;Hidden&quot;
  load(0).Value = True
  document = StarDesktop.loadComponentFromURL(ConvertToURL(source), &quot;_blank&quot;, 0, load())
  If password = &quot;&quot; Then
    Dim plain(0) As New com.sun.star.beans.PropertyValue
    plain(0).Name = &quot;FilterName&quot;
    plain(0).Value = filter
    document.storeToURL(ConvertToURL(target), plain())
  Else
    Dim store(1) As New com.sun.star.beans.PropertyValue
    store(0).Name = &quot;FilterName&quot;
    store(0).Value = filter
    store(1).Name = &quot;Password&quot;
    store(1).Value = password
    document.storeToURL(ConvertToURL(target), store())
  End If
  document.close(True)
End Sub
</script:module>
"""


def cells(binary, path, password_file=None):
    command = [binary, "cells", str(path)]
    if password_file is not None:
        command += ["--password-file", str(password_file)]
    env = dict(os.environ)
    env.pop("SHEETSTREAM_PASSWORD", None)
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)


def write_plain(path):
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path))
    date = book.add_format({"num_format": "yyyy-mm-dd"})
    for number, name in enumerate(["Numbers", "Tëxt ünd Daten", "Small"]):
        sheet = book.add_worksheet(name)
        sheet.write_row(0, 0, ["id", "amount", "label", "day", "flag"])
        for row in range(1, 3001 if number < 2 else 4):
            sheet.write_number(row, 0, row)
            sheet.write_number(row, 1, row * 1.25 + number)
            sheet.write_string(row, 2, f"ligne {row} – café {number}")
            sheet.write_datetime(row, 3, datetime.datetime(2024, 1, 1) + datetime.timedelta(days=row), date)
            sheet.write_boolean(row, 4, row % 3 == 0)
    book.close()


def libreoffice_profile(folder):
    """A LibreOffice profile holding the macro (started once to create it)."""
    url = pathlib.Path(folder).resolve().as_uri()
    subprocess.run(
        ["soffice", "--headless", "--norestore", f"-env:UserInstallation={url}", "--terminate_after_init"],
        capture_output=True, timeout=180, check=True,
    )
    library = pathlib.Path(folder) / "user" / "basic" / "Standard"
    (library / "Roundtrip.xba").write_text(MACRO, encoding="utf-8")
    listing = library / "script.xlb"
    text = listing.read_text(encoding="utf-8")
    if 'library:name="Roundtrip"' not in text:
        text = text.replace("</library:library>", ' <library:element library:name="Roundtrip"/>\n</library:library>')
        listing.write_text(text, encoding="utf-8")
    return url


def libreoffice_save(profile, source, target, password):
    quoted = lambda text: '"' + str(text).replace('"', '""') + '"'
    macro = "macro:///Standard.Roundtrip.Save({})".format(
        ",".join(quoted(part) for part in (source, target, "MS Excel 97", password))
    )
    subprocess.run(
        ["soffice", "--headless", "--norestore", f"-env:UserInstallation={profile}", macro],
        capture_output=True, timeout=180,
    )
    if not pathlib.Path(target).is_file():
        raise SystemExit(f"LibreOffice did not write {target}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    import msoffcrypto

    repo = pathlib.Path(__file__).resolve().parents[2]
    failures = []
    checked = 0
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        password_file = scratch / "password"
        password_file.write_bytes(PASSWORD.encode("utf-8"))
        wrong_file = scratch / "wrong"
        wrong_file.write_bytes(b"not the password")
        plain = sorted((repo / "examples" / "data").glob("*.xlsx"))
        written = scratch / "written.xlsx"
        write_plain(written)
        plain.append(written)

        def check(label, encrypted, reference, password):
            nonlocal checked
            before = len(failures)
            expected = cells(args.bin, reference)
            got = cells(args.bin, encrypted, password)
            if expected.returncode != 0:
                failures.append(f"{label}: the plain workbook failed: {expected.stderr.strip()}")
            elif got.returncode != 0:
                failures.append(f"{label}: {got.stderr.strip()}")
            elif got.stdout != expected.stdout:
                failures.append(f"{label}: the cells differ from the plain workbook's")
            wrong = cells(args.bin, encrypted, wrong_file)
            if password is not None and (wrong.returncode != 1 or "the password is incorrect" not in wrong.stderr):
                failures.append(f"{label}: a wrong password gave exit {wrong.returncode}: {wrong.stderr.strip()}")
            checked += 1
            print(f"{'ok  ' if len(failures) == before else 'FAIL'} {label}")

        # msoffcrypto-tool: Agile, a password, and Excel's default one.
        for source in plain:
            for password, suffix in ((PASSWORD, "agile"), ("VelvetSweatshop", "velvet")):
                target = scratch / f"{source.stem}-{suffix}.xlsx"
                with open(source, "rb") as reader, open(target, "wb") as writer:
                    msoffcrypto.OfficeFile(reader).encrypt(password, writer)
                check(
                    f"msoffcrypto-tool {suffix}: {source.name}",
                    target,
                    source,
                    password_file if suffix == "agile" else None,
                )
        # LibreOffice: .xls with a password (RC4), against its plain .xls.
        if shutil.which("soffice") is None:
            raise SystemExit("LibreOffice (soffice) is missing")
        profile = libreoffice_profile(scratch / "profile")
        for source in plain:
            reference = scratch / f"{source.stem}-lo-plain.xls"
            encrypted = scratch / f"{source.stem}-lo-rc4.xls"
            libreoffice_save(profile, source, reference, "")
            libreoffice_save(profile, source, encrypted, PASSWORD)
            check(f"LibreOffice .xls RC4: {source.name}", encrypted, reference, password_file)
    print(f"{checked} encrypted workbooks read back, {len(failures)} failed")
    for failure in failures:
        print("  " + failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
