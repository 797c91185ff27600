//! Helpers shared by the integration tests: building `.xlsx` packages by
//! hand with the `zip` writer, running the `sheetstream` binary, and turning
//! what the library reads into the cells JSONL of
//! `../shared/conformance/FORMAT.md` for comparison.
#![allow(dead_code)]

pub mod answers;
#[cfg(feature = "encryption")]
pub mod encrypt;
#[cfg(feature = "encryption")]
pub mod odf_encrypt;
pub mod xls;

use std::io::{Cursor, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value as Json, json};
use sheetstream::{SheetKind, Value, Workbook};
use zip::CompressionMethod;
use zip::write::{SimpleFileOptions, ZipWriter};

pub const MAIN_NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
pub const REL_NS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
pub const PKG_REL_NS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
pub const MS_REL_NS: &str = "http://schemas.microsoft.com/office/2006/relationships";
pub const STRICT_MAIN_NS: &str = "http://purl.oclc.org/ooxml/spreadsheetml/main";
pub const STRICT_REL_NS: &str = "http://purl.oclc.org/ooxml/officeDocument/relationships";

pub const XML_DECL: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;

/// How the entries of a package are stored in the ZIP container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// Deflate, sizes in the local headers (the usual layout).
    Deflated,
    /// No compression (method 0).
    Stored,
    /// Written by the streaming writer: sizes and CRC follow each entry in a
    /// data descriptor.
    Stream,
    /// ZIP64 extra fields on every entry.
    Zip64,
    /// ZIP64 and data descriptors together.
    Zip64Stream,
}

/// A ZIP package under construction: named entries in order.
#[derive(Debug, Clone, Default)]
pub struct Package {
    entries: Vec<(String, Vec<u8>)>,
}

impl Package {
    pub fn new() -> Package {
        Package::default()
    }

    /// Adds an entry, or replaces the entry of that exact name.
    pub fn with(mut self, name: &str, bytes: impl Into<Vec<u8>>) -> Package {
        let bytes = bytes.into();
        match self.entries.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = bytes,
            None => self.entries.push((name.to_owned(), bytes)),
        }
        self
    }

    /// Removes the entry of that exact name (which must exist).
    pub fn without(mut self, name: &str) -> Package {
        let before = self.entries.len();
        self.entries.retain(|(n, _)| n != name);
        assert_eq!(self.entries.len() + 1, before, "no entry {name} to remove");
        self
    }

    pub fn build(&self) -> Vec<u8> {
        self.build_as(Container::Deflated)
    }

    pub fn build_as(&self, container: Container) -> Vec<u8> {
        let options = match container {
            Container::Deflated | Container::Stream => SimpleFileOptions::default(),
            Container::Stored => {
                SimpleFileOptions::default().compression_method(CompressionMethod::Stored)
            }
            Container::Zip64 | Container::Zip64Stream => {
                SimpleFileOptions::default().large_file(true)
            }
        };
        match container {
            Container::Stream | Container::Zip64Stream => {
                let mut zip = ZipWriter::new_stream(Vec::new());
                self.write_entries(&mut zip, options);
                zip.finish().expect("finish the stream ZIP").into_inner()
            }
            _ => {
                let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
                self.write_entries(&mut zip, options);
                zip.finish().expect("finish the ZIP").into_inner()
            }
        }
    }

    fn write_entries<W: Write + Seek>(&self, zip: &mut ZipWriter<W>, options: SimpleFileOptions) {
        for (name, bytes) in &self.entries {
            zip.start_file(name.as_str(), options)
                .expect("start a ZIP entry");
            zip.write_all(bytes).expect("write a ZIP entry");
        }
    }
}

/// A sheet of a [`Book`]: its name as written in workbook.xml (already
/// XML-escaped), its relationship type and its part's XML.
#[derive(Debug, Clone)]
struct SheetSpec {
    name_xml: String,
    rel_type: String,
    state: Option<&'static str>,
    xml: Vec<u8>,
}

/// A conventional Transitional workbook at `xl/workbook.xml`.
#[derive(Debug, Clone, Default)]
pub struct Book {
    sheets: Vec<SheetSpec>,
    shared_strings: Option<Vec<u8>>,
    styles: Option<Vec<u8>>,
    workbook_pr: Option<String>,
}

pub fn book() -> Book {
    Book::default()
}

impl Book {
    /// A worksheet named `name_xml` (written into the attribute as is).
    pub fn sheet(self, name_xml: &str, xml: impl Into<Vec<u8>>) -> Book {
        self.sheet_of_type(name_xml, &format!("{REL_NS}/worksheet"), None, xml)
    }

    pub fn sheet_with_state(self, name_xml: &str, state: &'static str, xml: &str) -> Book {
        self.sheet_of_type(name_xml, &format!("{REL_NS}/worksheet"), Some(state), xml)
    }

    pub fn sheet_of_type(
        mut self,
        name_xml: &str,
        rel_type: &str,
        state: Option<&'static str>,
        xml: impl Into<Vec<u8>>,
    ) -> Book {
        self.sheets.push(SheetSpec {
            name_xml: name_xml.to_owned(),
            rel_type: rel_type.to_owned(),
            state,
            xml: xml.into(),
        });
        self
    }

    /// The shared strings part, given the raw inner XML of each `<si>`.
    pub fn strings(mut self, items: &[&str]) -> Book {
        self.shared_strings = Some(sst_xml(items).into_bytes());
        self
    }

    pub fn strings_part(mut self, xml: impl Into<Vec<u8>>) -> Book {
        self.shared_strings = Some(xml.into());
        self
    }

    pub fn styles(mut self, xml: impl Into<Vec<u8>>) -> Book {
        self.styles = Some(xml.into());
        self
    }

    /// The `<workbookPr .../>` element, e.g. `<workbookPr date1904="1"/>`.
    pub fn workbook_pr(mut self, element: &str) -> Book {
        self.workbook_pr = Some(element.to_owned());
        self
    }

    pub fn workbook_xml(&self) -> String {
        let mut sheets = String::new();
        for (i, sheet) in self.sheets.iter().enumerate() {
            let state = sheet
                .state
                .map(|s| format!(r#" state="{s}""#))
                .unwrap_or_default();
            sheets.push_str(&format!(
                r#"<sheet name="{}" sheetId="{}"{state} r:id="rId{}"/>"#,
                sheet.name_xml,
                i + 1,
                i + 1
            ));
        }
        format!(
            r#"{XML_DECL}<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}">{}<sheets>{sheets}</sheets></workbook>"#,
            self.workbook_pr.as_deref().unwrap_or("")
        )
    }

    pub fn package(&self) -> Package {
        let mut rels = Vec::new();
        let mut parts = Vec::new();
        for (i, sheet) in self.sheets.iter().enumerate() {
            let folder = match sheet.rel_type.rsplit('/').next() {
                Some("chartsheet") => "chartsheets",
                Some("dialogsheet") => "dialogsheets",
                Some("xlMacrosheet") | Some("xlIntlMacrosheet") => "macrosheets",
                _ => "worksheets",
            };
            let target = format!("{folder}/sheet{}.xml", i + 1);
            rels.push((
                format!("rId{}", i + 1),
                sheet.rel_type.clone(),
                target.clone(),
            ));
            parts.push((format!("xl/{target}"), sheet.xml.clone()));
        }
        let mut package = Package::new()
            .with("[Content_Types].xml", content_types())
            .with("_rels/.rels", package_rels("xl/workbook.xml"));
        if let Some(styles) = &self.styles {
            rels.push((
                "rIdStyles".into(),
                format!("{REL_NS}/styles"),
                "styles.xml".into(),
            ));
            package = package.with("xl/styles.xml", styles.clone());
        }
        if let Some(strings) = &self.shared_strings {
            rels.push((
                "rIdStrings".into(),
                format!("{REL_NS}/sharedStrings"),
                "sharedStrings.xml".into(),
            ));
            package = package.with("xl/sharedStrings.xml", strings.clone());
        }
        package = package
            .with("xl/workbook.xml", self.workbook_xml())
            .with("xl/_rels/workbook.xml.rels", rels_xml(&rels));
        for (name, bytes) in parts {
            package = package.with(&name, bytes);
        }
        package
    }

    pub fn build(&self) -> Vec<u8> {
        self.package().build()
    }
}

pub fn content_types() -> String {
    format!(
        r#"{XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>"#
    )
}

/// `_rels/.rels` pointing at the workbook part.
pub fn package_rels(workbook_target: &str) -> String {
    rels_xml(&[(
        "rId1".into(),
        format!("{REL_NS}/officeDocument"),
        workbook_target.into(),
    )])
}

/// A relationships part from (id, type, target) triples.
pub fn rels_xml(rels: &[(String, String, String)]) -> String {
    let mut out = format!(r#"{XML_DECL}<Relationships xmlns="{PKG_REL_NS}">"#);
    for (id, kind, target) in rels {
        out.push_str(&format!(
            r#"<Relationship Id="{id}" Type="{kind}" Target="{target}"/>"#
        ));
    }
    out.push_str("</Relationships>");
    out
}

/// A worksheet part around the given `<sheetData>` content.
pub fn sheet_xml(rows: &str) -> String {
    format!(r#"{XML_DECL}<worksheet xmlns="{MAIN_NS}"><sheetData>{rows}</sheetData></worksheet>"#)
}

/// A shared strings part; each item is the raw inner XML of an `<si>`.
pub fn sst_xml(items: &[&str]) -> String {
    let mut out = format!(
        r#"{XML_DECL}<sst xmlns="{MAIN_NS}" count="{0}" uniqueCount="{0}">"#,
        items.len()
    );
    for item in items {
        out.push_str(&format!("<si>{item}</si>"));
    }
    out.push_str("</sst>");
    out
}

/// A styles part: custom number formats and the numFmtId of each `cellXfs`
/// entry (style index = position).
pub fn styles_xml(custom: &[(u32, &str)], cell_xfs: &[u32]) -> String {
    let mut out = format!(r#"{XML_DECL}<styleSheet xmlns="{MAIN_NS}">"#);
    if !custom.is_empty() {
        out.push_str(&format!(r#"<numFmts count="{}">"#, custom.len()));
        for (id, code) in custom {
            out.push_str(&format!(r#"<numFmt numFmtId="{id}" formatCode="{code}"/>"#));
        }
        out.push_str("</numFmts>");
    }
    out.push_str(r#"<cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs>"#);
    out.push_str(&format!(r#"<cellXfs count="{}">"#, cell_xfs.len()));
    for id in cell_xfs {
        out.push_str(&format!(
            r#"<xf numFmtId="{id}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>"#
        ));
    }
    out.push_str("</cellXfs></styleSheet>");
    out
}

/// The rows `rows` of sheet XML, each of `columns` numbers (at most 26:
/// A, B, ...), the value of a cell `row * columns + column` plus a half.
pub fn number_rows(rows: std::ops::RangeInclusive<usize>, columns: usize) -> String {
    let mut xml = String::with_capacity(rows.clone().count() * (columns * 30 + 20));
    for row in rows {
        xml.push_str(&format!(r#"<row r="{row}">"#));
        for column in 0..columns {
            let letter = char::from(b'A' + column as u8);
            xml.push_str(&format!(
                r#"<c r="{letter}{row}"><v>{}.5</v></c>"#,
                row * columns + column
            ));
        }
        xml.push_str("</row>");
    }
    xml
}

/// A file under Cargo's per-target temporary folder, unique to this process.
pub fn temp_file(stem: &str, bytes: &[u8]) -> TempFile {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sheetstream-tests");
    std::fs::create_dir_all(&dir).expect("create the temporary folder");
    let path = dir.join(format!(
        "{stem}-{}-{}.xlsx",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, bytes).expect("write a temporary workbook");
    TempFile(path)
}

/// A temporary file, removed on drop.
pub struct TempFile(pub PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// What a run of the command-line tool gave.
#[derive(Debug)]
pub struct CliRun {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `sheetstream COMMAND FILE` on the given workbook bytes.
pub fn run_cli(command: &str, stem: &str, bytes: &[u8]) -> CliRun {
    let file = temp_file(stem, bytes);
    run_cli_args(&[command, file.0.to_str().expect("UTF-8 temp path")])
}

pub fn run_cli_args(args: &[&str]) -> CliRun {
    let output = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args(args)
        .output()
        .expect("run the sheetstream binary");
    CliRun {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("the CLI prints UTF-8"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `t` and `v` of a value, as FORMAT.md writes them.
pub fn value_json(value: Value<'_>) -> (&'static str, Json) {
    match value {
        Value::Number(number) => ("n", number_json(number)),
        Value::Text(text) => ("s", Json::String(text.to_owned())),
        Value::Bool(flag) => ("b", Json::Bool(flag)),
        Value::Error(code) => ("e", Json::String(code.to_owned())),
        Value::DateTime(date) => match date.to_civil() {
            Some(civil) => ("d", Json::String(civil.to_string())),
            None => ("n", number_json(date.serial())),
        },
        other => panic!("a value FORMAT.md does not describe: {other:?}"),
    }
}

fn number_json(number: f64) -> Json {
    Json::Number(serde_json::Number::from_f64(number).expect("a finite number"))
}

/// One dump line as a JSON object.
pub fn line_json(sheet: &str, reference: &str, value: Value<'_>) -> Json {
    let (t, v) = value_json(value);
    json!({"sheet": sheet, "ref": reference, "t": t, "v": v})
}

/// The dump of every worksheet through the library's pull reader.
pub fn library_dump<R: Read + Seek>(workbook: &mut Workbook<R>) -> sheetstream::Result<Vec<Json>> {
    let worksheets: Vec<(usize, String)> = workbook
        .sheets()
        .iter()
        .enumerate()
        .filter(|(_, sheet)| sheet.kind() == SheetKind::Worksheet)
        .map(|(i, sheet)| (i, sheet.name().to_owned()))
        .collect();
    let mut lines = Vec::new();
    for (position, name) in worksheets {
        let mut rows = workbook.rows(position)?;
        while let Some(row) = rows.next_row()? {
            for cell in row.cells() {
                lines.push(line_json(
                    &name,
                    &cell.reference().to_string(),
                    cell.value(),
                ));
            }
        }
    }
    Ok(lines)
}

/// Parses dump text: one JSON object a non-blank line.
pub fn parse_dump(text: &str) -> Vec<Json> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let value: Json = serde_json::from_str(line)
                .unwrap_or_else(|err| panic!("line {}: not JSON ({err}): {line}", i + 1));
            assert!(value.is_object(), "line {}: not an object: {line}", i + 1);
            value
        })
        .collect()
}

/// FORMAT.md's equality: same keys, numbers equal as f64, everything else
/// exactly equal.
pub fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64() && x.as_f64().is_some(),
        (Json::Object(x), Json::Object(y)) => same_object(x, y),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        _ => a == b,
    }
}

fn same_object(x: &Map<String, Json>, y: &Map<String, Json>) -> bool {
    x.len() == y.len()
        && x.iter()
            .all(|(key, value)| y.get(key).is_some_and(|other| same(value, other)))
}

/// Compares two dumps line by line; returns a description of the first
/// few differences, or None when they are the same.
pub fn dump_difference(expected: &[Json], got: &[Json]) -> Option<String> {
    let mut diffs = Vec::new();
    for i in 0..expected.len().max(got.len()) {
        match (expected.get(i), got.get(i)) {
            (Some(e), Some(g)) if same(e, g) => {}
            (Some(e), Some(g)) => diffs.push(format!(
                "line {}: expected {} | got {}",
                i + 1,
                short(e),
                short(g)
            )),
            (Some(e), None) => diffs.push(format!("line {}: missing {}", i + 1, short(e))),
            (None, Some(g)) => diffs.push(format!("line {}: extra {}", i + 1, short(g))),
            (None, None) => unreachable!(),
        }
        if diffs.len() >= 5 {
            break;
        }
    }
    (!diffs.is_empty()).then(|| {
        format!(
            "{} expected lines, {} got\n{}",
            expected.len(),
            got.len(),
            diffs.join("\n")
        )
    })
}

/// A JSON value's text, cut to 300 characters for messages.
fn short(value: &Json) -> String {
    let text = value.to_string();
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}...({} chars)", &text[..at], text.chars().count()),
        None => text,
    }
}

/// A small deterministic generator (SplitMix64) for random-looking input.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

/// A fresh empty folder under Cargo's per-target temporary folder, unique
/// to this process; removed with its contents on drop.
pub fn temp_dir(stem: &str) -> TempDir {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sheetstream-tests")
        .join(format!(
            "{stem}-{}-{}.d",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).expect("create a temporary folder");
    TempDir(path)
}

/// A temporary folder, removed with its contents on drop.
pub struct TempDir(pub PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs a `sheetstream` binary other than the one Cargo built for the
/// tests (a release build, say), like [`run_cli_args`].
pub fn run_bin_args(bin: &Path, args: &[&str]) -> CliRun {
    let output = Command::new(bin)
        .args(args)
        .output()
        .unwrap_or_else(|err| panic!("run {}: {err}", bin.display()));
    CliRun {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("the CLI prints UTF-8"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The public conformance corpus beside the repository, when it is there.
pub fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus");
    root.is_dir().then_some(root)
}

/// Every workbook (`.xlsx`, `.xlsm`, `.xltx`, `.xltm`) under `root`,
/// sorted by path as `check.py` orders them.
pub fn corpus_workbooks(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read a corpus folder") {
            let path = entry.expect("a corpus entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| {
                ["xlsx", "xlsm", "xltx", "xltm"]
                    .iter()
                    .any(|known| ext.eq_ignore_ascii_case(known))
            }) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Says, in the normal `cargo test` output, that a test skipped its work
/// because `../shared` is absent. Written to the process's stderr itself,
/// not through `println!`, which the test harness captures and shows only
/// for failing tests or with `--nocapture`.
pub fn skip_notice(test: &str, what: &str) {
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "note: test {test} skipped: {what} not found (../shared is absent)"
    );
}
