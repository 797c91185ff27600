//! The inflate-only floor both benches measure against: worksheet parts
//! inflated to nowhere, with the inflate backend sheetstream uses (zlib-rs,
//! through flate2's low-level interface) and called the way sheetstream
//! calls it, only faster where it can be: 256 KiB of compressed input at a
//! time, inflated into one 512 KiB buffer that stays in cache, and the
//! CRC-32 of the output checked as a reader must. The file is read 256
//! KiB at a time, as sheetstream's own file source does.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use flate2::{Decompress, FlushDecompress, Status};
use zip::CompressionMethod;

/// Inflates the parts named `parts` of the archive at `path`; returns the
/// number of bytes inflated.
pub fn inflate_parts<'a>(path: &Path, parts: impl IntoIterator<Item = &'a str>) -> u64 {
    let file = BufReader::with_capacity(256 * 1024, File::open(path).expect("open"));
    let mut archive = zip::ZipArchive::new(file).expect("zip");
    let mut input = vec![0u8; 256 * 1024];
    let mut output = vec![0u8; 512 * 1024];
    let mut total = 0u64;
    for part in parts {
        let mut entry = archive.by_name_raw(part.as_bytes()).expect("part");
        if entry.compression() != CompressionMethod::Deflated {
            drop(entry);
            let mut entry = archive.by_name(part).expect("part");
            loop {
                match entry.read(&mut output).expect("read") {
                    0 => break,
                    count => total += count as u64,
                }
            }
            continue;
        }
        let expected_crc = entry.crc32();
        let mut inflater = Decompress::new(false);
        let mut crc = crc32fast::Hasher::new();
        let (mut start, mut end) = (0, 0);
        loop {
            if start == end {
                end = entry.read(&mut input).expect("read");
                start = 0;
            }
            let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
            let status = inflater
                .decompress(&input[start..end], &mut output, FlushDecompress::None)
                .expect("inflate");
            start += (inflater.total_in() - in_before) as usize;
            let produced = (inflater.total_out() - out_before) as usize;
            crc.update(&output[..produced]);
            total += produced as u64;
            if status == Status::StreamEnd {
                break;
            }
            assert!(produced > 0 || end > 0, "the deflate stream is cut short");
        }
        assert_eq!(crc.finalize(), expected_crc, "checksum of {part}");
    }
    total
}
