//! Writes the seed corpora of the fuzz targets:
//!
//! ```text
//! cargo run --manifest-path fuzz/Cargo.toml --example make_seeds
//! ```
//!
//! into `fuzz/corpus/<target>/` for every target but `format_code` and
//! `decompile_formula` (or under the folder given as the first argument). Every seed is built here
//! from scratch, except `sales.xlsx`, which is the crate's own sample
//! workbook (`examples/data/sales.xlsx`, written by
//! `cargo run --example write_sample`). The encrypted seeds of
//! `open_workbook` and `open_xls` (an Agile package and an RC4 CryptoAPI
//! `.xls`) are encrypted with Excel's default password, which opens them
//! without one, by the tests' encryptors (`tests/common/encrypt.rs`).

use std::fs;
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

#[path = "../../benches/support/xlsb_writer.rs"]
mod xlsb_writer;

#[path = "../../benches/support/ods_writer.rs"]
mod ods_writer;

use xlsb_writer::{STYLE_DATE, XlsbCell, XlsbWriter};

const MAIN_NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL_NS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG_REL_NS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";

/// Worksheet XML snippets for `scan_sheet`, each with the window size it
/// is seeded with (the target uses `first byte % 64 + 1`).
const SHEETS: &[(&str, u8, &str)] = &[
    (
        "full",
        6,
        concat!(
            "\u{feff}<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n",
            "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" ",
            "xmlns:x=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">",
            "<dimension ref=\"A1:C4\"/><sheetViews><sheetView workbookViewId=\"0\"/></sheetViews>",
            "<sheetData>\n",
            "<row r=\"1\" spans=\"1:3\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" s=\"1\"><v>45000.5</v></c>",
            "<c r=\"C1\" t=\"str\"><f>A1&amp;\"x\"</f><v>a&lt;b</v></c></row>",
            "<row r=\"3\"/>",
            "<row><c t=\"b\"><v>1</v></c><!-- note --><c t=\"e\"><v>#N/A</v></c><c r=\"E4\" s=\"1\"/>",
            "<c t=\"inlineStr\"><is><r><t>ri</t></r><r><t xml:space=\"preserve\">ch</t></r>",
            "<rPh><t>ignored</t></rPh></is></c></row>",
            "<x:row r='6' spans='1:1'><x:c r='B6' t='d'><x:v><![CDATA[2024-01-02]]></x:v></x:c></x:row>",
            "</sheetData><mergeCells count=\"1\"><mergeCell ref=\"A1:B1\"/></mergeCells></worksheet>"
        ),
    ),
    (
        "shared_strings_and_styles",
        0,
        concat!(
            "<worksheet><sheetData><row r=\"2\"><c r=\"A2\" t=\"s\"><v>2</v></c>",
            "<c r=\"B2\" t=\"s\"><v> 1 </v></c><c r=\"C2\" s=\"1\"><v>60</v></c>",
            "<c r=\"D2\" s=\"7\"><v>-1.5e3</v></c><c r=\"$E$2\"><v>.5</v></c></row>",
            "<row r=\"1048576\"><c r=\"XFD1048576\"><v>1</v></c></row></sheetData></worksheet>"
        ),
    ),
    (
        "iso_dates",
        2,
        concat!(
            "<worksheet><sheetData><row>",
            "<c t=\"d\"><v>1900-02-29</v></c><c t=\"d\"><v>2024-02-29T23:59:59.9995Z</v></c>",
            "<c t=\"d\"><v>T12:30</v></c><c t=\"d\"><v>10:15:00+05:30</v></c>",
            "<c t=\"d\"><v>P1DT2H3M4.5S</v></c><c t=\"d\"><v>PT90M</v></c>",
            "<c t=\"d\"><v>0001-01-01</v></c><c t=\"d\"><v>9999-12-31T23:59:59</v></c>",
            "</row></sheetData></worksheet>"
        ),
    ),
    (
        "text_decoding",
        1,
        concat!(
            "<worksheet><sheetData><row r=\"1\">",
            "<c t=\"inlineStr\"><is><t>a&#65;&#x42;&quot;&apos;&gt;\r\nb_x000D__x005F_x0041_</t></is></c>",
            "<c t=\"inlineStr\"><is><t>_xD83D__xDE00_ \u{e9}\u{6f22}</t><t><![CDATA[<&>]]></t></is></c>",
            "<c t=\"str\"><f>SUM(A1:A2)&amp;\"_x0041_\"</f><v>x&amp;y</v></c>",
            "<c t=\"inlineStr\"><v>ignored</v><is/></c>",
            "<c><v>1</v><f t=\"shared\" si=\"0\"/></c>",
            "</row></sheetData></worksheet>"
        ),
    ),
    (
        "no_references",
        3,
        concat!(
            "<worksheet><sheetData><row><c><v>1</v></c><c><v>2</v></c><c/><c><v/></c></row>",
            "<row><c t=\"b\"><v>true</v></c></row><row/><row spans=\"1:2\"/></sheetData></worksheet>"
        ),
    ),
    (
        "chartsheet",
        63,
        "<?xml version=\"1.0\"?><chartsheet><sheetPr/><drawing r:id=\"rId1\"/></chartsheet>",
    ),
    (
        "empty_sheet_data",
        9,
        "<worksheet><sheetData/><sheetData><row><c><v>1</v></c></row></sheetData></worksheet>",
    ),
    (
        "processing_instructions_and_comments",
        4,
        concat!(
            "<?xml version=\"1.0\"?><!-- <sheetData> --><worksheet><?pi <row> ?><sheetData>",
            "<!-- </sheetData> --><row r=\"5\"><?x?><c r=\"C5\"><!--<v>9</v>--><v>7</v></c></row>",
            "</sheetData></worksheet>"
        ),
    ),
    (
        "malformed",
        5,
        "<worksheet><sheetData><row><c r=\"A1\"><v>1</v></row></sheetData></worksheet>",
    ),
    (
        // Foreign elements (skipped with their content), prefixed
        // attributes (not the unqualified ones), declarations below the
        // root, SpreadsheetML under a prefix.
        "foreign_namespaces",
        8,
        concat!(
            "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" ",
            "xmlns:f=\"urn:example:foreign\" ",
            "xmlns:mc=\"http://schemas.openxmlformats.org/markup-compatibility/2006\" ",
            "mc:Ignorable=\"f\"><f:sheetData/><sheetData>",
            "<row r=\"1\" f:r=\"7\"><c r=\"A1\" f:t=\"s\"><v>1</v></c><f:c r=\"B1\"><v>2</v></f:c>",
            "<c f:r=\"Z1\" t=\"inlineStr\"><is><t>a</t><f:t>b</f:t></is></c>",
            "<c r=\"D1\"><f:v>9</f:v><v>4</v></c></row>",
            "<mc:AlternateContent><mc:Choice Requires=\"f\"><row r=\"2\"><c><v>3</v></c></row>",
            "</mc:Choice></mc:AlternateContent><f:row r=\"3\"/>",
            "<row r=\"4\" xmlns:s=\"http://purl.oclc.org/ooxml/spreadsheetml/main\">",
            "<s:c r=\"A4\" t=\"s\"><s:v>0</s:v></s:c><c r=\"B4\" xmlns=\"urn:other\"><v>5</v></c></row>",
            "<row r=\"5\" xmlns=\"urn:other\"><c><v>6</v></c></row><row><c><v>7</v></c></row>",
            "</sheetData></worksheet>"
        ),
    ),
    (
        "bad_values",
        7,
        concat!(
            "<worksheet><sheetData><row><c t=\"b\"><v>2</v></c><c><v>inf</v></c>",
            "<c t=\"s\"><v>99</v></c><c t=\"d\"><v>2024-13-01</v></c></row></sheetData></worksheet>"
        ),
    ),
];

/// `content.xml` documents for `scan_ods`, each with its window size.
const ODS_CONTENTS: &[(&str, u8, &str)] = &[
    (
        "values",
        6,
        concat!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content ",
            "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" ",
            "xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" ",
            "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" ",
            "xmlns:calcext=\"urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0\">",
            "<office:body><office:spreadsheet><table:table table:name=\"S\">",
            "<table:table-column table:number-columns-repeated=\"3\" table:default-cell-style-name=\"ce1\"/>",
            "<table:table-row><table:table-cell office:value-type=\"float\" office:value=\"1.5\"><text:p>1.5</text:p></table:table-cell>",
            "<table:table-cell table:style-name=\"ce1\" office:value-type=\"date\" office:date-value=\"2024-03-01T12:00:00\"/>",
            "<table:table-cell office:value-type=\"time\" office:time-value=\"-PT1H\"/>",
            "<table:table-cell office:value-type=\"boolean\" office:boolean-value=\"1\"/>",
            "<table:table-cell office:value-type=\"string\"><text:p>a<text:s text:c=\"2\"/>b<text:tab/></text:p><text:p>c</text:p></table:table-cell>",
            "<table:table-cell office:value-type=\"string\" calcext:value-type=\"error\"><text:p>#DIV/0!</text:p></table:table-cell></table:table-row>",
            "<table:table-row-group><table:table-row table:number-rows-repeated=\"2\" table:visibility=\"collapse\">",
            "<table:table-cell table:number-columns-repeated=\"2\"/><table:covered-table-cell table:number-columns-repeated=\"2\" ",
            "office:value-type=\"percentage\" office:value=\"0.5\" table:formula=\"of:=[.A1]/3\"/></table:table-row></table:table-row-group>",
            "</table:table><table:table table:name=\"T\"><table:table-row><table:table-cell office:value-type=\"string\" ",
            "office:string-value=\"x&amp;y\"/></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"
        ),
    ),
    (
        "markup",
        1,
        concat!(
            "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\">",
            "<office:body><office:spreadsheet><table:table table:name=\"skipped\"><!-- </table:table> -->",
            "<table:table-row><table:table-cell><table:table table:name=\"nested\"/></table:table-cell></table:table-row></table:table>",
            "<table:table table:name=\"read\"><table:table-row><table:table-cell office:value-type=\"string\">",
            "<text:p><![CDATA[<x>]]><text:span>s</text:span><office:annotation><text:p>no</text:p></office:annotation></text:p>",
            "</table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"
        ),
    ),
    (
        "repeats",
        63,
        concat!(
            "<office:document-content><office:body><office:spreadsheet><table:table table:name=\"S\">",
            "<table:table-row table:number-rows-repeated=\"1048575\"><table:table-cell table:number-columns-repeated=\"16384\"/></table:table-row>",
            "<table:table-row><table:table-cell table:number-columns-repeated=\"16383\"/><table:table-cell office:value-type=\"float\" office:value=\"1\"/>",
            "</table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"
        ),
    ),
];

fn main() {
    let root = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"));

    let sheet_dir = root.join("scan_sheet");
    fs::create_dir_all(&sheet_dir).expect("create the scan_sheet corpus folder");
    for (name, chunk, xml) in SHEETS {
        let mut seed = vec![*chunk];
        seed.extend_from_slice(xml.as_bytes());
        write(&sheet_dir.join(format!("seed-{name}")), &seed);
    }

    let ods_dir = root.join("scan_ods");
    fs::create_dir_all(&ods_dir).expect("create the scan_ods corpus folder");
    for (name, chunk, xml) in ODS_CONTENTS {
        let mut seed = vec![*chunk];
        seed.extend_from_slice(xml.as_bytes());
        write(&ods_dir.join(format!("seed-{name}")), &seed);
    }

    let xlsb_dir = root.join("read_sheet_xlsb");
    fs::create_dir_all(&xlsb_dir).expect("create the read_sheet_xlsb corpus folder");
    for (name, chunk, bytes) in xlsb_sheets() {
        let mut seed = vec![chunk];
        seed.extend_from_slice(&bytes);
        write(&xlsb_dir.join(format!("seed-{name}")), &seed);
    }

    let workbook_dir = root.join("open_workbook");
    fs::create_dir_all(&workbook_dir).expect("create the open_workbook corpus folder");
    for (name, bytes) in workbooks() {
        write(&workbook_dir.join(format!("seed-{name}.xlsx")), &bytes);
    }
    write(
        &workbook_dir.join("seed-every-cell.xlsb"),
        &xlsb_workbook().to_bytes(),
    );
    let ods = ods_writer::write_mixed(Cursor::new(Vec::new()), 2, 30, 10)
        .expect("write an .ods seed")
        .into_inner();
    write(&workbook_dir.join("seed-mixed.ods"), &ods);
    // Encrypted with Excel's default password: the target opens them
    // unasked and reaches the decrypting readers. (Few spin rounds: each
    // open tries the password once.)
    let params = encrypt::AgileParams {
        spin_count: 10,
        ..encrypt::AgileParams::default()
    };
    let package = zip(&[
        part("[Content_Types].xml", content_types(), false),
        part("_rels/.rels", package_rels("xl/workbook.xml"), false),
        part(
            "xl/workbook.xml",
            workbook("", &[("Sheet1", "rId1", "")]),
            false,
        ),
        part(
            "xl/_rels/workbook.xml.rels",
            relationships(&[(
                "rId1",
                &format!("{REL_NS}/worksheet"),
                "worksheets/sheet1.xml",
            )]),
            false,
        ),
        part(
            "xl/worksheets/sheet1.xml",
            format!(
                "<worksheet xmlns=\"{MAIN_NS}\"><sheetData><row r=\"1\"><c r=\"A1\"><v>1.5</v></c>\
                 <c r=\"B1\" t=\"inlineStr\"><is><t>encrypted</t></is></c></row></sheetData>\
                 </worksheet>"
            ),
            false,
        ),
    ]);
    write(
        &workbook_dir.join("seed-agile-velvet.xlsx"),
        &encrypt::compound(&encrypt::agile(&package, "VelvetSweatshop", &params)),
    );
    let (_, stream) = &xls_streams()[0];
    let rc4 = xls::compound(&[(
        "Workbook",
        &encrypt::xls_rc4_cryptoapi(stream, "VelvetSweatshop", 1),
    )]);
    write(&workbook_dir.join("seed-rc4-velvet.xls"), &rc4);
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/sales.xlsx");
    match fs::read(&sample) {
        Ok(bytes) => write(&workbook_dir.join("seed-sales.xlsx"), &bytes),
        Err(err) => eprintln!("skipping {}: {err}", sample.display()),
    }
    let xls_dir = root.join("open_xls");
    fs::create_dir_all(&xls_dir).expect("create the open_xls corpus folder");
    let mut encrypted = vec![0u8];
    encrypted.extend(encrypt::xls_rc4_cryptoapi(
        &xls_streams()[0].1,
        "VelvetSweatshop",
        2,
    ));
    write(&xls_dir.join("seed-biff8-rc4-velvet"), &encrypted);
    for (name, stream) in xls_streams() {
        // Mode byte 0: the rest is a Workbook stream.
        let mut seed = vec![0u8];
        seed.extend_from_slice(&stream);
        write(&xls_dir.join(format!("seed-{name}")), &seed);
        // Mode byte 1: the rest is the whole file.
        let mut seed = vec![1u8];
        seed.extend(xls::compound(&[("Workbook", &stream)]));
        write(&xls_dir.join(format!("seed-{name}-file")), &seed);
    }
    let encryption_dir = root.join("encryption_headers");
    fs::create_dir_all(&encryption_dir).expect("create the encryption_headers corpus folder");
    for (name, mode, bytes) in encryption_headers() {
        let mut seed = vec![mode];
        seed.extend_from_slice(&bytes);
        write(&encryption_dir.join(format!("seed-{name}")), &seed);
    }
    println!("seeds written under {}", root.display());
}

/// Headers for `encryption_headers`, with the mode byte that picks their
/// parser: an Agile `EncryptionInfo` as Office writes it (spin count 1000,
/// so that the target tries a password), a Standard one, FILEPASS bodies
/// of each scheme, a workbook stream holding one, an ODF manifest.
fn encryption_headers() -> Vec<(&'static str, u8, Vec<u8>)> {
    let b64 = |len: usize| "A".repeat(len.div_ceil(3) * 4);
    let cipher = "saltSize=\"16\" blockSize=\"16\" keyBits=\"256\" hashSize=\"64\" \
                  cipherAlgorithm=\"AES\" cipherChaining=\"ChainingModeCBC\" \
                  hashAlgorithm=\"SHA512\" saltValue=\"AAAAAAAAAAAAAAAAAAAAAA==\"";
    let agile_xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\r\n<encryption \
         xmlns=\"http://schemas.microsoft.com/office/2006/encryption\" \
         xmlns:p=\"http://schemas.microsoft.com/office/2006/keyEncryptor/password\">\
         <keyData {}/><dataIntegrity encryptedHmacKey=\"{h}\" encryptedHmacValue=\"{h}\"/>\
         <keyEncryptors><keyEncryptor \
         uri=\"http://schemas.microsoft.com/office/2006/keyEncryptor/password\">\
         <p:encryptedKey spinCount=\"1000\" {} encryptedVerifierHashInput=\"{}\" \
         encryptedVerifierHashValue=\"{h}\" encryptedKeyValue=\"{}\"/></keyEncryptor>\
         </keyEncryptors></encryption>",
        cipher,
        cipher,
        "AAAAAAAAAAAAAAAAAAAAAA==",
        b64(32),
        h = b64(64),
    );
    let mut agile = vec![4, 0, 4, 0, 0x40, 0, 0, 0];
    agile.extend_from_slice(agile_xml.as_bytes());
    let csp: Vec<u8> = "Microsoft Enhanced RSA and AES Cryptographic Provider\0"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let crypto_api_header = |alg: u32, bits: u32| {
        let mut header = Vec::new();
        for word in [0x24u32, 0, alg, 0x8004, bits, 0x18, 0, 0] {
            header.extend_from_slice(&word.to_le_bytes());
        }
        header.extend_from_slice(&csp);
        header
    };
    let verifier = |hash: usize| {
        let mut bytes = 16u32.to_le_bytes().to_vec();
        bytes.extend_from_slice(&[7; 32]);
        bytes.extend_from_slice(&20u32.to_le_bytes());
        bytes.extend(std::iter::repeat_n(9, hash));
        bytes
    };
    let mut standard = vec![4, 0, 2, 0];
    standard.extend_from_slice(&0x24u32.to_le_bytes());
    let header = crypto_api_header(0x660E, 128);
    standard.extend_from_slice(&(header.len() as u32).to_le_bytes());
    standard.extend_from_slice(&header);
    standard.extend(verifier(32));
    let mut rc4 = vec![1, 0, 1, 0, 1, 0];
    rc4.extend_from_slice(&[3; 48]);
    let mut crypto_api = vec![1, 0, 4, 0, 2, 0];
    crypto_api.extend_from_slice(&0x04u32.to_le_bytes());
    let header = crypto_api_header(0x6801, 128);
    crypto_api.extend_from_slice(&(header.len() as u32).to_le_bytes());
    crypto_api.extend_from_slice(&header);
    crypto_api.extend(verifier(20));
    let xor = vec![0, 0, 0x34, 0x12, 0x0A, 0x9A];
    let record = |kind: u16, body: &[u8]| {
        let mut bytes = kind.to_le_bytes().to_vec();
        bytes.extend_from_slice(&(body.len() as u16).to_le_bytes());
        bytes.extend_from_slice(body);
        bytes
    };
    let mut stream = record(0x0809, &[0, 6, 5, 0, 0, 0, 0, 0]);
    stream.extend(record(0x002F, &xor));
    stream.extend(record(0x0085, &[0x40, 0, 0, 0, 0, 0, 1, 0, b'S']));
    stream.extend(record(0x000A, &[]));
    let manifest = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><manifest:manifest \
         xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\">\
         <manifest:file-entry manifest:full-path=\"content.xml\" manifest:size=\"10\">\
         <manifest:encryption-data manifest:checksum-type=\"SHA1/1K\" manifest:checksum=\"{}\">\
         <manifest:algorithm manifest:algorithm-name=\"Blowfish CFB\" \
         manifest:initialisation-vector=\"AAAAAAAAAAA=\"/><manifest:key-derivation \
         manifest:key-derivation-name=\"PBKDF2\" manifest:iteration-count=\"1000\" \
         manifest:salt=\"AAAAAAAAAAAAAAAAAAAAAA==\"/></manifest:encryption-data>\
         </manifest:file-entry></manifest:manifest>",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAA="
    );
    vec![
        ("agile", 0, agile),
        ("standard", 0, standard),
        ("filepass-rc4", 1, rc4),
        ("filepass-rc4-cryptoapi", 1, crypto_api),
        ("filepass-xor", 1, xor),
        ("stream-xor", 2, stream),
        ("manifest-blowfish", 3, manifest.into_bytes()),
    ]
}

/// `.xls` workbook streams for `open_xls`, from the tests' BIFF writer.
fn xls_streams() -> Vec<(&'static str, Vec<u8>)> {
    let mut cells = Vec::new();
    cells.extend(xls::number(0, 0, 1, 45_000.5));
    cells.extend(xls::rk(0, 1, 0, xls::rk_int(125, true)));
    cells.extend(xls::mulrk(
        1,
        0,
        &[(0, xls::rk_int(1, false)), (2, xls::rk_int(2, false))],
    ));
    cells.extend(xls::label_sst(2, 0, 0, 1));
    cells.extend(xls::label(2, 1, 0, "Grüße 世界"));
    cells.extend(xls::boolerr(3, 0, 0, 0x07, true));
    cells.extend(xls::formula_string(3, 1, 0, "result"));
    cells.extend(xls::formula_empty(3, 2, 0));
    let mut book = xls::Book::new();
    book.date1904();
    book.tail = xls::sst(&["zero", &"long ".repeat(40), "αβγ"], 3, 40, true);
    book.sheet("Data", cells);
    book.sheets.push(("Chart".into(), 2, Vec::new()));
    let mut biff5 = xls::Book::biff5(Some(1251));
    biff5.sheet("S", xls::label_bytes(0, 0, 0, &[0xCF, 0xF0, 0xE8]));
    vec![("biff8", book.stream()), ("biff5", biff5.stream())]
}

#[path = "../../tests/common/encrypt.rs"]
mod encrypt;
#[path = "../../tests/common/xls.rs"]
mod xls;

/// The tests' generator (SplitMix64), for the encryptors' salts and keys.
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
/// An `.xlsb` workbook with a cell of every kind, hidden rows and
/// columns and a merged range.
fn xlsb_workbook() -> XlsbWriter {
    let mut writer = XlsbWriter::new();
    writer.add_sheet("Data", 0);
    writer.hide_columns(2, 3);
    writer.merge([0, 1, 0, 1]);
    writer.row(0);
    writer.cell(0, 0, XlsbCell::Number(1.25));
    writer.cell(1, STYLE_DATE, XlsbCell::Number(45000.0));
    writer.cell(2, 0, XlsbCell::Text("shared"));
    writer.cell(3, 0, XlsbCell::RichText("rich"));
    writer.row_with(1, true);
    writer.cell(0, 0, XlsbCell::Bool(true));
    writer.cell(1, 0, XlsbCell::Error(0x07));
    writer.cell(2, 0, XlsbCell::FormulaNumber(3.5));
    writer.cell(3, 0, XlsbCell::FormulaText("f"));
    writer.cell(4, 0, XlsbCell::Blank);
    writer.add_sheet("Hidden", 1);
    writer.row(3);
    writer.cell(0, 0, XlsbCell::Real(0.1));
    writer
}

/// Sheet parts for `read_sheet_xlsb`: the sheets of [`xlsb_workbook`],
/// taken out of its package, with window sizes.
fn xlsb_sheets() -> Vec<(&'static str, u8, Vec<u8>)> {
    let bytes = xlsb_workbook().to_bytes();
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("the writer's package");
    let mut sheet = |name: &str| {
        let mut part = Vec::new();
        std::io::Read::read_to_end(&mut archive.by_name(name).expect("a sheet part"), &mut part)
            .expect("read a sheet part");
        part
    };
    vec![
        ("every-cell", 6, sheet("xl/worksheets/sheet1.bin")),
        ("hidden", 1, sheet("xl/worksheets/sheet2.bin")),
    ]
}

fn write(path: &Path, bytes: &[u8]) {
    fs::write(path, bytes).unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
}

/// A package part: name, content, stored (true) or deflated.
type Part = (String, Vec<u8>, bool);

fn part(name: &str, content: impl Into<Vec<u8>>, stored: bool) -> Part {
    (name.to_owned(), content.into(), stored)
}

fn zip(parts: &[Part]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, content, stored) in parts {
        let method = if *stored {
            CompressionMethod::Stored
        } else {
            CompressionMethod::Deflated
        };
        writer
            .start_file(
                name.as_str(),
                SimpleFileOptions::default().compression_method(method),
            )
            .expect("start a ZIP entry");
        writer.write_all(content).expect("write a ZIP entry");
    }
    writer.finish().expect("finish the ZIP").into_inner()
}

fn content_types() -> String {
    concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
        "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">",
        "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>",
        "<Default Extension=\"xml\" ContentType=\"application/xml\"/></Types>"
    )
    .to_owned()
}

fn package_rels(target: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?><Relationships xmlns=\"{PKG_REL_NS}\">\
         <Relationship Id=\"rId1\" Type=\"{REL_NS}/officeDocument\" Target=\"{target}\"/>\
         </Relationships>"
    )
}

/// `rels`: (id, type suffix, target).
fn relationships(rels: &[(&str, &str, &str)]) -> String {
    let mut xml = format!("<?xml version=\"1.0\"?><Relationships xmlns=\"{PKG_REL_NS}\">");
    for (id, kind, target) in rels {
        xml.push_str(&format!(
            "<Relationship Id=\"{id}\" Type=\"{REL_NS}/{kind}\" Target=\"{target}\"/>"
        ));
    }
    xml.push_str("</Relationships>");
    xml
}

/// `sheets`: (name, relationship id, extra attributes).
fn workbook(properties: &str, sheets: &[(&str, &str, &str)]) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\"?><workbook xmlns=\"{MAIN_NS}\" xmlns:r=\"{REL_NS}\">{properties}<sheets>"
    );
    for (name, id, extra) in sheets {
        xml.push_str(&format!(
            "<sheet name=\"{name}\" sheetId=\"1\" r:id=\"{id}\"{extra}/>"
        ));
    }
    xml.push_str("</sheets></workbook>");
    xml
}

const STYLES: &str = concat!(
    "<?xml version=\"1.0\"?><styleSheet><numFmts count=\"2\">",
    "<numFmt numFmtId=\"164\" formatCode=\"yyyy\\-mm\\-dd hh:mm\"/>",
    "<numFmt numFmtId=\"165\" formatCode=\"&quot;d&quot;0.00;[Red]-0.00\"/></numFmts>",
    "<cellXfs count=\"5\"><xf numFmtId=\"0\"/><xf numFmtId=\"14\"/><xf numFmtId=\"164\"/>",
    "<xf numFmtId=\"165\"/><xf numFmtId=\"46\"/></cellXfs></styleSheet>"
);

const SHARED_STRINGS: &str = concat!(
    "<?xml version=\"1.0\"?><sst count=\"5\" uniqueCount=\"4\">",
    "<si><t>plain</t></si>",
    "<si><r><rPr><b/></rPr><t>ri</t></r><r><t xml:space=\"preserve\">ch &amp; </t></r></si>",
    "<si><t>\u{6f22}\u{5b57}</t><rPh sb=\"0\" eb=\"2\"><t>\u{304b}\u{3093}\u{3058}</t></rPh></si>",
    "<si/><si><t>a_x000D_b<![CDATA[&c]]></t></si></sst>"
);

const RICH_SHEET: &str = concat!(
    "<?xml version=\"1.0\"?><worksheet><sheetData>",
    "<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" t=\"s\"><v>1</v></c>",
    "<c r=\"C1\" t=\"s\"><v>4</v></c></row>",
    "<row r=\"2\"><c r=\"A2\" s=\"1\"><v>45351</v></c><c r=\"B2\" s=\"2\"><v>1.75</v></c>",
    "<c r=\"C2\" s=\"3\"><v>-2</v></c><c r=\"D2\" s=\"4\"><v>0.25</v></c></row>",
    "<row r=\"4\"><c r=\"A4\"><f>SUM(A2:D2)</f><v>45351</v></c><c r=\"B4\" t=\"str\"><f>\"a\"&amp;\"b\"</f><v>ab</v></c>",
    "<c r=\"C4\" t=\"b\"><v>0</v></c><c r=\"D4\" t=\"e\"><v>#DIV/0!</v></c>",
    "<c r=\"E4\" t=\"d\"><v>2024-02-29T12:00:00</v></c>",
    "<c r=\"F4\" t=\"inlineStr\"><is><t>inline</t></is></c></row>",
    "</sheetData></worksheet>"
);

fn workbooks() -> Vec<(&'static str, Vec<u8>)> {
    let simple_sheet = "<worksheet><sheetData><row r=\"1\"><c r=\"A1\"><v>42</v></c>\
                        <c r=\"B1\" t=\"inlineStr\"><is><t>hi</t></is></c></row></sheetData></worksheet>";
    let minimal = zip(&[
        part("[Content_Types].xml", content_types(), true),
        part("_rels/.rels", package_rels("xl/workbook.xml"), true),
        part(
            "xl/workbook.xml",
            workbook("", &[("Sheet1", "rId1", "")]),
            true,
        ),
        part(
            "xl/_rels/workbook.xml.rels",
            relationships(&[("rId1", "worksheet", "worksheets/sheet1.xml")]),
            true,
        ),
        part("xl/worksheets/sheet1.xml", simple_sheet, true),
    ]);

    let rich = zip(&[
        part("[Content_Types].xml", content_types(), false),
        part("_rels/.rels", package_rels("/xl/workbook.xml"), false),
        part(
            "xl/workbook.xml",
            workbook(
                "<workbookPr date1904=\"1\"/>",
                &[
                    ("Data", "rId1", ""),
                    ("Hidden &amp; more", "rId2", " state=\"hidden\""),
                    ("Chart", "rId3", " state=\"veryHidden\""),
                ],
            ),
            false,
        ),
        part(
            "xl/_rels/workbook.xml.rels",
            relationships(&[
                ("rId1", "worksheet", "worksheets/sheet1.xml"),
                ("rId2", "worksheet", "../xl/worksheets/./sheet%202.xml"),
                ("rId3", "chartsheet", "chartsheets/sheet1.xml"),
                ("rId4", "styles", "styles.xml"),
                ("rId5", "sharedStrings", "sharedStrings.xml"),
            ]),
            false,
        ),
        part("xl/worksheets/sheet1.xml", RICH_SHEET, false),
        part("xl/worksheets/sheet 2.xml", simple_sheet, true),
        part(
            "xl/chartsheets/sheet1.xml",
            "<chartsheet><drawing r:id=\"rId1\"/></chartsheet>",
            true,
        ),
        part("xl/styles.xml", STYLES, false),
        part("xl/sharedStrings.xml", SHARED_STRINGS, false),
    ]);

    // No package relationships: the workbook is found by its conventional
    // name, and so are the styles and shared strings; names differ in case.
    let conventional = zip(&[
        part(
            "XL/Workbook.xml",
            workbook("", &[("Only", "rId7", "")]),
            true,
        ),
        part(
            "xl/_rels/workbook.xml.rels",
            relationships(&[("rId7", "worksheet", "Worksheets\\Sheet1.xml")]),
            true,
        ),
        part("xl/worksheets/sheet1.xml", RICH_SHEET, true),
        part("xl/styles.xml", STYLES, true),
        part("xl/sharedStrings.xml", SHARED_STRINGS, true),
    ]);

    // A UTF-16 worksheet and shared strings part, prefixed element names.
    let utf16 = |text: &str| -> Vec<u8> {
        "\u{feff}"
            .encode_utf16()
            .chain(text.encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect()
    };
    // `x` is SpreadsheetML's prefix here: the cells are read.
    let prefixed_sheet = format!(
        "<x:worksheet xmlns:x=\"{MAIN_NS}\"><x:sheetData><x:row r=\"1\">\
         <x:c r=\"A1\" t=\"s\"><x:v>0</x:v></x:c><x:c r=\"B1\"><x:v>3</x:v></x:c>\
         </x:row></x:sheetData></x:worksheet>"
    );
    let encoded = zip(&[
        part("_rels/.rels", package_rels("xl/workbook.xml"), true),
        part(
            "xl/workbook.xml",
            workbook("", &[("UTF-16", "rId1", "")]),
            true,
        ),
        part(
            "xl/_rels/workbook.xml.rels",
            relationships(&[
                ("rId1", "worksheet", "worksheets/sheet1.xml"),
                ("rId2", "sharedStrings", "sharedStrings.xml"),
            ]),
            true,
        ),
        part("xl/worksheets/sheet1.xml", utf16(&prefixed_sheet), true),
        part(
            "xl/sharedStrings.xml",
            utf16("<sst><si><t>\u{1f600} utf-16</t></si></sst>"),
            false,
        ),
    ]);

    // Namespaces everywhere: prefixed package relationships with a foreign
    // look-alike, a relationship id under another prefix, foreign sheets,
    // defined names and metadata, comments with foreign runs.
    let foreign = "urn:example:foreign";
    let namespaced = zip(&[
        part(
            "_rels/.rels",
            format!(
                "<p:Relationships xmlns:p=\"{PKG_REL_NS}\" xmlns:f=\"{foreign}\">\
                 <f:Relationship Id=\"rId0\" Type=\"{REL_NS}/officeDocument\" Target=\"ghost.xml\"/>\
                 <p:Relationship Id=\"rId1\" Type=\"{REL_NS}/officeDocument\" Target=\"xl/workbook.xml\"/>\
                 </p:Relationships>"
            ),
            true,
        ),
        part(
            "xl/workbook.xml",
            format!(
                "<workbook xmlns=\"{MAIN_NS}\" xmlns:rel=\"{REL_NS}\" xmlns:r=\"{foreign}\" \
                 xmlns:f=\"{foreign}\"><f:workbookPr date1904=\"1\"/><sheets>\
                 <f:sheet name=\"Ghost\" sheetId=\"9\" rel:id=\"rId1\"/>\
                 <sheet name=\"Data\" sheetId=\"1\" rel:id=\"rId1\" r:id=\"rId9\"/></sheets>\
                 <definedNames><definedName name=\"Real\" localSheetId=\"0\">Data!$A$1</definedName>\
                 <f:definedName name=\"Ghost\">Data!$B$1</f:definedName></definedNames></workbook>"
            ),
            true,
        ),
        part(
            "xl/_rels/workbook.xml.rels",
            relationships(&[
                ("rId1", "worksheet", "worksheets/sheet1.xml"),
                ("rId2", "sharedStrings", "sharedStrings.xml"),
            ]),
            true,
        ),
        part(
            "xl/worksheets/sheet1.xml",
            format!(
                "<worksheet xmlns=\"{MAIN_NS}\" xmlns:f=\"{foreign}\" xmlns:rel=\"{REL_NS}\">\
                 <f:dimension ref=\"A1:Z9\"/><dimension ref=\"A1:B3\"/>\
                 <cols><col min=\"1\" max=\"1\" hidden=\"1\"/><f:col min=\"2\" max=\"2\" hidden=\"1\"/></cols>\
                 <sheetData><row r=\"1\" hidden=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c>\
                 <c r=\"B1\" f:t=\"s\"><v>1</v></c></row><f:row r=\"2\" hidden=\"1\"/>\
                 <row r=\"3\" f:hidden=\"1\"><c r=\"A3\"><v>3</v></c></row></sheetData>\
                 <mergeCells><mergeCell ref=\"A1:B1\"/><f:mergeCell ref=\"A3:B3\"/></mergeCells>\
                 <hyperlinks><hyperlink ref=\"A1\" rel:id=\"rId1\"/></hyperlinks></worksheet>"
            ),
            true,
        ),
        part(
            "xl/worksheets/_rels/sheet1.xml.rels",
            relationships(&[
                ("rId1", "hyperlink", "https://example.com/"),
                ("rId2", "comments", "../comments1.xml"),
            ]),
            true,
        ),
        part(
            "xl/comments1.xml",
            format!(
                "<comments xmlns=\"{MAIN_NS}\" xmlns:f=\"{foreign}\"><authors><author>Ann</author>\
                 <f:author>Ghost</f:author></authors><commentList><comment ref=\"A1\" authorId=\"0\">\
                 <text><t>keep</t><f:t>drop</f:t></text></comment>\
                 <f:comment ref=\"B1\" authorId=\"0\"><text><t>ghost</t></text></f:comment>\
                 </commentList></comments>"
            ),
            true,
        ),
        part(
            "xl/sharedStrings.xml",
            format!(
                "<sst xmlns=\"{MAIN_NS}\" xmlns:f=\"{foreign}\"><f:si><t>ghost</t></f:si>\
                 <si><t>one</t><f:t>not this</f:t></si></sst>"
            ),
            true,
        ),
    ]);

    vec![
        ("minimal", minimal),
        ("rich", rich),
        ("conventional", conventional),
        ("utf16", encoded),
        ("namespaces", namespaced),
    ]
}
