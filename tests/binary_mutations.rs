//! One answer for hostile binary workbooks (issue 46), by property: every
//! `.xls` and `.xlsb` of the public binary corpus, and seeded mutations of
//! them and of workbooks written here, read on 1, 2, 4 and 16 threads
//! through the pull reader, the engine, `Sheet`, Arrow and the CLI's
//! `cells` (`common::answers::assert_one_answer`): any difference in
//! rows, values or error fails.
//!
//! The mutations: bytes flipped (in the file, in the `.xls` Workbook
//! stream, in an `.xlsb` part); records cut, grown, dropped, doubled and
//! moved (the stream's offsets then made true again: BOUNDSHEET, INDEX,
//! DBCELL); INDEX and DBCELL offsets moved so that they lie; block
//! boundaries put inside a row (a row's last cell moved past the next
//! block's ROW records) and between a FORMULA and its STRING; `.xlsb`
//! parts cut at a record boundary.
//!
//! The full run is in the slow tier (`.ci/run` runs it in release); the
//! default tier reads a few dozen mutations. Without
//! `../shared/conformance/corpus-binary` only the workbooks written here
//! are mutated (said on stderr).

use crate::common;

use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

use common::answers::assert_one_answer;
use common::xls::{self, Book};
use common::{Rng, TempFile, temp_file};

use crate::xlsb::xlsb_writer::{self, XlsbCell, XlsbWriter};

// ---------------------------------------------------------------------------
// BIFF (.xls) streams: records, and their offsets made true again.

const BOF: u16 = 0x0809;
const OLD_BOFS: [u16; 3] = [0x0009, 0x0209, 0x0409];
const EOF: u16 = 0x000A;
const BOUNDSHEET: u16 = 0x0085;
const INDEX: u16 = 0x020B;
const DBCELL: u16 = 0x00D7;
const ROW: u16 = 0x0208;
const FORMULA: u16 = 0x0006;
const STRING: u16 = 0x0207;
const CELLS: [u16; 8] = [
    0x0203, 0x027E, 0x00BD, 0x00FD, 0x0204, 0x00D6, 0x0205, FORMULA,
];

pub(crate) type Records = Vec<(u16, Vec<u8>)>;

/// A stream's records; None when it ends inside one.
pub(crate) fn biff_records(stream: &[u8]) -> Option<Records> {
    let mut records = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let header = stream.get(at..at + 4)?;
        let kind = u16::from_le_bytes([header[0], header[1]]);
        let len = usize::from(u16::from_le_bytes([header[2], header[3]]));
        records.push((kind, stream.get(at + 4..at + 4 + len)?.to_vec()));
        at += 4 + len;
    }
    Some(records)
}

/// Which records are in a sheet's substream (not the globals), and of
/// which substream (by order), at depth 0 of it.
fn sheet_of(records: &Records) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(records.len());
    let mut depth = 0usize;
    let mut substream = 0usize;
    for (kind, _) in records {
        let is_bof = *kind == BOF || OLD_BOFS.contains(kind);
        if is_bof {
            depth += 1;
            if depth == 1 {
                substream += 1;
            }
        }
        // Substream 1 is the globals.
        out.push((depth == 1 && substream > 1 && !is_bof).then(|| substream - 2));
        if *kind == EOF {
            depth = depth.saturating_sub(1);
        }
    }
    out
}

/// The stream of `records`, its BOUNDSHEET offsets made the substreams'
/// and each sheet's INDEX and DBCELL offsets made true.
pub(crate) fn biff_stream(records: &Records) -> Vec<u8> {
    let mut offsets = Vec::with_capacity(records.len());
    let mut at = 0usize;
    for (_, data) in records {
        offsets.push(at);
        at += 4 + data.len();
    }
    let mut records = records.clone();
    // The top-level BOFs after the globals', in order.
    let mut depth = 0usize;
    let mut starts = Vec::new();
    for (i, (kind, _)) in records.iter().enumerate() {
        if *kind == BOF || OLD_BOFS.contains(kind) {
            if depth == 0 {
                starts.push(offsets[i]);
            }
            depth += 1;
        } else if *kind == EOF {
            depth = depth.saturating_sub(1);
        }
    }
    let mut sheet_starts = starts.iter().skip(1);
    for (kind, data) in records.iter_mut() {
        if *kind == BOUNDSHEET && data.len() >= 4 {
            match sheet_starts.next() {
                Some(&start) => data[..4].copy_from_slice(&(start as u32).to_le_bytes()),
                None => break,
            }
        }
    }
    // INDEX and DBCELL, sheet by sheet.
    let sheets = sheet_of(&records);
    let mut index_at: Option<usize> = None;
    let mut dbcells: Vec<usize> = Vec::new();
    let mut block_start: Option<usize> = None;
    let mut current = None;
    let fix = |records: &mut Records, index_at: Option<usize>, dbcells: &[usize]| {
        if let Some(index_at) = index_at {
            let data = &mut records[index_at].1;
            for (slot, &dbcell) in data
                .get_mut(16..)
                .unwrap_or(&mut [])
                .chunks_exact_mut(4)
                .zip(dbcells)
            {
                slot.copy_from_slice(&(offsets[dbcell] as u32).to_le_bytes());
            }
        }
    };
    for i in 0..records.len() {
        if sheets[i] != current {
            fix(&mut records, index_at, &dbcells);
            index_at = None;
            dbcells.clear();
            block_start = None;
            current = sheets[i];
        }
        if current.is_none() {
            continue;
        }
        match records[i].0 {
            INDEX => index_at = Some(i),
            ROW if block_start.is_none() => block_start = Some(offsets[i]),
            DBCELL => {
                if let Some(start) = block_start.take() {
                    let back = (offsets[i] - start) as u32;
                    if let Some(field) = records[i].1.get_mut(..4) {
                        field.copy_from_slice(&back.to_le_bytes());
                    }
                }
                dbcells.push(i);
            }
            _ => {}
        }
    }
    fix(&mut records, index_at, &dbcells);
    let mut out = Vec::with_capacity(at);
    for (kind, data) in &records {
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&(data.len() as u16).to_le_bytes());
        out.extend_from_slice(data);
    }
    out
}

/// The workbook stream of an `.xls` file and its name; None for anything
/// else.
pub(crate) fn workbook_stream(bytes: &[u8]) -> Option<(&'static str, Vec<u8>)> {
    let mut file = cfb::CompoundFile::open(Cursor::new(bytes.to_vec())).ok()?;
    for name in ["Workbook", "Book"] {
        if let Ok(mut stream) = file.open_stream(format!("/{name}")) {
            let mut data = Vec::new();
            stream.read_to_end(&mut data).ok()?;
            return Some((name, data));
        }
    }
    None
}

/// One mutation of an `.xls` file.
fn mutate_xls(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let Some((name, stream)) = workbook_stream(bytes) else {
        return flip_bytes(bytes, rng);
    };
    let Some(mut records) = biff_records(&stream) else {
        return flip_bytes(bytes, rng);
    };
    let sheets = sheet_of(&records);
    let in_sheets: Vec<usize> = (0..records.len())
        .filter(|&i| sheets[i].is_some())
        .collect();
    let pick = |rng: &mut Rng, from: &[usize]| from[(rng.next_u64() % from.len() as u64) as usize];
    let choice = rng.next_u64() % 10;
    let stream = if in_sheets.is_empty() || choice == 0 {
        flip_bytes(&stream, rng)
    } else {
        match choice {
            1 => {
                // A record cut short.
                let at = pick(rng, &in_sheets);
                let len = records[at].1.len();
                let keep = (rng.next_u64() % (len as u64 + 1)) as usize;
                records[at].1.truncate(keep.min(len.saturating_sub(1)));
                biff_stream(&records)
            }
            2 => {
                // A record grown.
                let at = pick(rng, &in_sheets);
                let count = 1 + (rng.next_u64() % 4) as usize;
                let more = rng.bytes(count);
                records[at].1.extend(more);
                biff_stream(&records)
            }
            3 => {
                // Dropped or doubled.
                let at = pick(rng, &in_sheets);
                if rng.next_u64().is_multiple_of(2) {
                    records.remove(at);
                } else {
                    let copy = records[at].clone();
                    records.insert(at, copy);
                }
                biff_stream(&records)
            }
            4 => {
                // Moved a few records on.
                let at = pick(rng, &in_sheets);
                let to = (at + 1 + (rng.next_u64() % 40) as usize).min(records.len() - 1);
                let record = records.remove(at);
                records.insert(to, record);
                biff_stream(&records)
            }
            5 => {
                // A cell's row changed by one: rows going back, or on into
                // the next block.
                let cells: Vec<usize> = in_sheets
                    .iter()
                    .copied()
                    .filter(|&i| CELLS.contains(&records[i].0) && records[i].1.len() >= 2)
                    .collect();
                if cells.is_empty() {
                    return flip_bytes(bytes, rng);
                }
                let at = pick(rng, &cells);
                let row = u16::from_le_bytes([records[at].1[0], records[at].1[1]]);
                let row = if rng.next_u64().is_multiple_of(2) {
                    row.wrapping_sub(1)
                } else {
                    row.wrapping_add(1)
                };
                records[at].1[..2].copy_from_slice(&row.to_le_bytes());
                biff_stream(&records)
            }
            6 => {
                // A block boundary inside a row: a row's last cell before a
                // DBCELL moved past the next block's ROW records.
                let Some(dbcell) = pick_kind(&records, &in_sheets, DBCELL, rng) else {
                    return flip_bytes(bytes, rng);
                };
                let Some(cell) = (0..dbcell).rev().find(|&i| CELLS.contains(&records[i].0)) else {
                    return flip_bytes(bytes, rng);
                };
                let mut to = dbcell + 1;
                while records.get(to).is_some_and(|(kind, _)| *kind == ROW) {
                    to += 1;
                }
                let record = records.remove(cell);
                records.insert(to - 1, record);
                biff_stream(&records)
            }
            7 => {
                // A block boundary between a FORMULA and its STRING.
                let strings: Vec<usize> = in_sheets
                    .iter()
                    .copied()
                    .filter(|&i| records[i].0 == STRING && i > 0 && records[i - 1].0 == FORMULA)
                    .collect();
                if strings.is_empty() {
                    return flip_bytes(bytes, rng);
                }
                let at = pick(rng, &strings);
                let Some(dbcell) = (at..records.len()).find(|&i| records[i].0 == DBCELL) else {
                    return flip_bytes(bytes, rng);
                };
                let mut to = dbcell + 1;
                while records.get(to).is_some_and(|(kind, _)| *kind == ROW) {
                    to += 1;
                }
                let record = records.remove(at);
                records.insert(to - 1, record);
                biff_stream(&records)
            }
            _ => {
                // INDEX or DBCELL offsets that lie.
                let mut out = biff_stream(&records);
                let targets: Vec<usize> = in_sheets
                    .iter()
                    .copied()
                    .filter(|&i| matches!(records[i].0, INDEX | DBCELL))
                    .collect();
                if targets.is_empty() {
                    return flip_bytes(bytes, rng);
                }
                let at = pick(rng, &targets);
                let offset: usize = records[..at].iter().map(|(_, data)| 4 + data.len()).sum();
                let field = if records[at].0 == INDEX {
                    let entries = records[at].1.len().saturating_sub(16) / 4;
                    if entries == 0 {
                        return flip_bytes(bytes, rng);
                    }
                    offset + 4 + 16 + 4 * (rng.next_u64() % entries as u64) as usize
                } else {
                    offset + 4
                };
                if let Some(slot) = out.get_mut(field..field + 4) {
                    let value = u32::from_le_bytes([slot[0], slot[1], slot[2], slot[3]]);
                    let delta = [4u32, 8, 14, 20, 1][(rng.next_u64() % 5) as usize];
                    let lie = if rng.next_u64().is_multiple_of(2) {
                        value.wrapping_add(delta)
                    } else {
                        value.wrapping_sub(delta)
                    };
                    slot.copy_from_slice(&lie.to_le_bytes());
                }
                out
            }
        }
    };
    xls::compound(&[(name, &stream)])
}

fn pick_kind(records: &Records, among: &[usize], kind: u16, rng: &mut Rng) -> Option<usize> {
    let found: Vec<usize> = among
        .iter()
        .copied()
        .filter(|&i| records[i].0 == kind)
        .collect();
    (!found.is_empty()).then(|| found[(rng.next_u64() % found.len() as u64) as usize])
}

/// One to four bytes overwritten at random.
fn flip_bytes(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    if bytes.is_empty() {
        return bytes;
    }
    for _ in 0..1 + rng.next_u64() % 4 {
        let at = (rng.next_u64() % bytes.len() as u64) as usize;
        bytes[at] = rng.next_u64() as u8;
    }
    bytes
}

// ---------------------------------------------------------------------------
// BIFF12 (.xlsb) parts in their ZIP package.

pub(crate) fn xlsb_records(part: &[u8]) -> Option<Vec<(u16, Vec<u8>)>> {
    let mut records = Vec::new();
    let mut at = 0;
    while at < part.len() {
        let mut kind = u16::from(*part.get(at)?);
        at += 1;
        if kind & 0x80 != 0 {
            kind = (kind & 0x7F) | (u16::from(*part.get(at)? & 0x7F) << 7);
            at += 1;
        }
        let mut size = 0usize;
        for shift in 0..4 {
            let byte = *part.get(at)?;
            at += 1;
            size |= usize::from(byte & 0x7F) << (7 * shift);
            if byte & 0x80 == 0 {
                break;
            }
        }
        records.push((kind, part.get(at..at + size)?.to_vec()));
        at += size;
    }
    Some(records)
}

pub(crate) fn xlsb_part(records: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (kind, body) in records {
        xlsb_writer::record(&mut out, *kind, body);
    }
    out
}

/// The entries of a ZIP package, in order; None for anything else.
pub(crate) fn entries(bytes: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes.to_vec())).ok()?;
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).ok()?;
        let mut data = Vec::new();
        entry.read_to_end(&mut data).ok()?;
        let name = entry.name().ok()?.into_owned();
        out.push((name, data));
    }
    Some(out)
}

pub(crate) fn package(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        zip.start_file(name.as_str(), options).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// One mutation of an `.xlsb` file: of one of its record parts (a sheet
/// most often), rezipped with true CRCs, or of the file's bytes.
fn mutate_xlsb(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let Some(mut parts) = entries(bytes) else {
        return flip_bytes(bytes, rng);
    };
    let binary: Vec<usize> = (0..parts.len())
        .filter(|&i| parts[i].0.ends_with(".bin") && xlsb_records(&parts[i].1).is_some())
        .collect();
    if binary.is_empty() || rng.next_u64().is_multiple_of(12) {
        return flip_bytes(bytes, rng);
    }
    let sheets: Vec<usize> = binary
        .iter()
        .copied()
        .filter(|&i| parts[i].0.contains("worksheets/"))
        .collect();
    let from = if !sheets.is_empty() && !rng.next_u64().is_multiple_of(3) {
        &sheets
    } else {
        &binary
    };
    let target = from[(rng.next_u64() % from.len() as u64) as usize];
    let mut records = xlsb_records(&parts[target].1).expect("checked above");
    if records.is_empty() {
        return flip_bytes(bytes, rng);
    }
    let at = (rng.next_u64() % records.len() as u64) as usize;
    parts[target].1 = match rng.next_u64() % 8 {
        0 => flip_bytes(&parts[target].1, rng),
        1 => {
            let len = records[at].1.len();
            records[at]
                .1
                .truncate((rng.next_u64() % (len as u64 + 1)) as usize);
            xlsb_part(&records)
        }
        2 => {
            let count = 1 + (rng.next_u64() % 8) as usize;
            let more = rng.bytes(count);
            records[at].1.extend(more);
            xlsb_part(&records)
        }
        3 => {
            records.remove(at);
            xlsb_part(&records)
        }
        4 => {
            let copy = records[at].clone();
            records.insert(at, copy);
            xlsb_part(&records)
        }
        5 => {
            let record = records.remove(at);
            let to = (at + 1 + (rng.next_u64() % 20) as usize).min(records.len());
            records.insert(to, record);
            xlsb_part(&records)
        }
        6 => {
            // Cut at a record boundary (a part without its closing records).
            records.truncate(at);
            xlsb_part(&records)
        }
        _ => {
            // A value's bytes overwritten: a NaN, an infinity, a row or
            // column far away, a string count past its record.
            let body = &mut records[at].1;
            if body.len() >= 8 {
                let from = (rng.next_u64() % (body.len() as u64 - 7)) as usize;
                let word: [u8; 8] = match rng.next_u64() % 4 {
                    0 => f64::NAN.to_le_bytes(),
                    1 => f64::INFINITY.to_le_bytes(),
                    2 => [0xFF, 0xFF, 0x0F, 0x00, 0, 0, 0, 0],
                    _ => [0xFF, 0x7F, 0, 0, 0, 0, 0, 0],
                };
                body[from..from + 8].copy_from_slice(&word);
            }
            xlsb_part(&records)
        }
    };
    package(&parts)
}

// ---------------------------------------------------------------------------
// Seeds: the corpus and workbooks written here.

/// An indexed sheet of `rows` rows in 32-row blocks (Excel's layout):
/// numbers, RKs, MULRKs, shared strings, labels (some continued over a
/// CONTINUE), booleans, errors, formulas with string results (some the
/// last records of their block), hidden rows.
pub(crate) fn indexed_xls(rows: u16, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut blocks = Vec::new();
    for first in (0..rows).step_by(32) {
        let last = (first + 32).min(rows);
        let (mut row_records, mut cells) = (Vec::new(), Vec::new());
        for row in first..last {
            row_records.extend(xls::row_record(row, row % 17 == 3));
            if row % 13 == 5 {
                continue;
            }
            cells.extend(xls::number(row, 0, 0, f64::from(row) * 1.25));
            cells.extend(xls::label_sst(row, 1, 0, u32::from(row % 3)));
            match rng.next_u64() % 4 {
                0 => cells.extend(xls::label(row, 2, 0, &format!("label {row}"))),
                1 => cells.extend(xls::label(row, 2, 0, &format!("Grüße {row} \u{6771}"))),
                2 => {
                    // A label continued over a CONTINUE record.
                    let text = format!("continued {row}");
                    let mut data = Vec::new();
                    data.extend_from_slice(&row.to_le_bytes());
                    data.extend_from_slice(&2u16.to_le_bytes());
                    data.extend_from_slice(&0u16.to_le_bytes());
                    data.extend_from_slice(&(text.len() as u16).to_le_bytes());
                    data.push(0);
                    data.extend_from_slice(&text.as_bytes()[..4]);
                    cells.extend(xls::record(xls::LABEL, &data));
                    let mut rest = vec![0u8];
                    rest.extend_from_slice(&text.as_bytes()[4..]);
                    cells.extend(xls::record(xls::CONTINUE, &rest));
                }
                _ => {}
            }
            cells.extend(xls::mulrk(
                row,
                3,
                &[
                    (0, xls::rk_int(i32::from(row), false)),
                    (1, xls::rk_int(7, true)),
                ],
            ));
            if row % 11 == 0 {
                cells.extend(xls::boolerr(row, 5, 0, 0x07, true));
            } else {
                cells.extend(xls::boolerr(row, 5, 0, (row % 2) as u8, false));
            }
            if row % 5 == 0 || row + 1 == last {
                // A formula's string result, the block's last cell at its end.
                cells.extend(xls::formula_string(row, 6, 0, &format!("f{row}")));
            }
        }
        blocks.push((row_records, cells));
    }
    let mut book = Book::new();
    book.tail = xls::sst(&["alpha", "beta", "gamma"], 3, 8224, false);
    book.sheet("Data", xls::indexed_records(&blocks, &[], 0));
    book.sheet(
        "Small",
        [xls::number(0, 0, 0, 1.0), xls::label(1, 0, 0, "two")].concat(),
    );
    book.bytes()
}

/// An `.xlsb` of two sheets, one of `rows` rows of every cell kind.
pub(crate) fn written_xlsb(rows: u32) -> Vec<u8> {
    let mut writer = XlsbWriter::new();
    writer.add_sheet("Data", 0);
    for row in 0..rows {
        writer.row_with(row, row % 9 == 4);
        writer.cell(0, 0, XlsbCell::Number(f64::from(row)));
        writer.cell(1, 0, XlsbCell::Real(f64::from(row) + 0.5));
        writer.cell(2, 0, XlsbCell::Text(["a", "b", "c"][row as usize % 3]));
        writer.cell(3, 0, XlsbCell::Bool(row % 2 == 0));
        if row % 7 == 0 {
            writer.cell(4, 0, XlsbCell::Error(0x07));
            writer.cell(5, 0, XlsbCell::FormulaText("f"));
        }
        writer.cell(6, 1, XlsbCell::Number(40_000.0 + f64::from(row)));
    }
    writer.add_sheet("Two", 0);
    writer.row(0);
    writer.cell(0, 0, XlsbCell::Text("two"));
    writer.to_bytes()
}

fn corpus_binary() -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus-binary");
    if !root.is_dir() {
        return None;
    }
    let mut found = Vec::new();
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path
                .extension()
                .is_some_and(|ext| ext == "xls" || ext == "xlsb")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    Some(found)
}

/// The seeds: the workbooks written here, and the corpus's files of at
/// most `max_bytes` (all of them when None).
fn seeds(max_bytes: Option<u64>) -> Vec<(String, Vec<u8>)> {
    let mut seeds = vec![
        ("indexed.xls".to_owned(), indexed_xls(400, 1)),
        ("indexed-long.xls".to_owned(), indexed_xls(1500, 2)),
        ("written.xlsb".to_owned(), written_xlsb(300)),
    ];
    match corpus_binary() {
        Some(files) => {
            for path in files {
                let len = std::fs::metadata(&path).unwrap().len();
                if max_bytes.is_some_and(|max| len > max) {
                    continue;
                }
                seeds.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
        None => common::skip_notice(
            "binary_mutations",
            "../shared/conformance/corpus-binary (only the workbooks written here are mutated)",
        ),
    }
    seeds
}

fn mutate(name: &str, bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let is_xls = bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]);
    if is_xls {
        mutate_xls(bytes, rng)
    } else if name.ends_with(".xlsb") || bytes.starts_with(b"PK") {
        mutate_xlsb(bytes, rng)
    } else {
        flip_bytes(bytes, rng)
    }
}

/// Reads `count` seeded mutations (seed `seed`) of the seeds every way;
/// every `cli_every`th one through the CLI too. Returns how many were
/// refused and how many read.
fn run(seeds: &[(String, Vec<u8>)], count: usize, seed: u64, cli_every: usize) -> (usize, usize) {
    let bin = Path::new(env!("CARGO_BIN_EXE_sheetstream"));
    let mut rng = Rng(seed);
    let (mut refused, mut read) = (0, 0);
    for n in 0..count {
        let (name, bytes) = &seeds[(rng.next_u64() % seeds.len() as u64) as usize];
        let case_seed = rng.next_u64();
        let mut case_rng = Rng(case_seed | 1);
        let mutated = mutate(name, bytes, &mut case_rng);
        let label = format!("mutation {n} of {name} (case seed {case_seed:#x})");
        let file: Option<TempFile> =
            (cli_every > 0 && n % cli_every == 0).then(|| temp_file("mutation", &mutated));
        let cli = file.as_ref().map(|file| (bin, file.0.as_path()));
        match assert_one_answer(&mutated, &label, cli) {
            Ok(answer) if answer.error.is_some() => refused += 1,
            Ok(_) => read += 1,
            Err(_) => refused += 1,
        }
    }
    (refused, read)
}

#[test]
fn the_written_binary_workbooks_give_one_answer() {
    for (name, bytes) in [
        ("indexed.xls", indexed_xls(400, 1)),
        ("written.xlsb", written_xlsb(300)),
    ] {
        let file = temp_file("seed", &bytes);
        let bin = Path::new(env!("CARGO_BIN_EXE_sheetstream"));
        let answer = assert_one_answer(&bytes, name, Some((bin, &file.0))).unwrap();
        assert_eq!(answer.error, None, "{name}");
        // The fuzz targets' check of the same (rows on every thread count).
        assert!(sheetstream::fuzzing::read_on_every_thread_count(&bytes) > 0);
        // Read whole: the indexed sheet's every row with cells, and its
        // hidden rows without them.
        assert!(
            answer.lines().count() >= 300,
            "{name}: {}",
            answer.lines().count()
        );
    }
}

#[test]
fn a_few_dozen_mutations_give_one_answer() {
    // The default tier: the workbooks written here and the corpus's
    // smallest files, 48 mutations (8 through the CLI).
    let seeds = seeds(Some(64 * 1024));
    let (refused, read) = run(&seeds, 48, 0x46_4E55_4C4C, 6);
    println!("{refused} refused, {read} read");
    assert_eq!(refused + read, 48);
    assert!(refused > 0 && read > 0, "{refused} refused, {read} read");
}

#[test]
#[ignore = "slow tier: .ci/run runs it in release"]
fn the_binary_corpus_and_thousands_of_mutations_give_one_answer() {
    let seeds = seeds(None);
    // Every seed as it is, through the CLI too.
    let bin = Path::new(env!("CARGO_BIN_EXE_sheetstream"));
    for (name, bytes) in &seeds {
        let file = temp_file("corpus", bytes);
        let _ = assert_one_answer(bytes, name, Some((bin, &file.0)));
    }
    // Mutations of the seeds up to 2 MB (the larger ones cost time, not
    // coverage: their first blocks are what mutations reach).
    let small: Vec<(String, Vec<u8>)> = seeds
        .into_iter()
        .filter(|(_, bytes)| bytes.len() <= 2 << 20)
        .collect();
    // Another seed than the fixed one: SHEETSTREAM_MUTATION_SEED (hex).
    let seed = std::env::var("SHEETSTREAM_MUTATION_SEED")
        .ok()
        .and_then(|seed| u64::from_str_radix(seed.trim_start_matches("0x"), 16).ok())
        .unwrap_or(0x1551_E046);
    let (refused, read) = run(&small, 4000, seed, 25);
    println!("seed {seed:#x}: {refused} refused, {read} read");
    assert!(
        refused > 100 && read > 100,
        "{refused} refused, {read} read"
    );
}
