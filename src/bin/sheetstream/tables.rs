//! `tables`: the Excel tables (ListObjects) of each workbook, read from
//! the table parts without reading any cell.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::Args;

use crate::format::json_string;
use crate::input::inputs;
use crate::{Common, Failure, escape, file_column};

/// The `tables` command's arguments.
#[derive(Args, Clone)]
pub struct TablesArgs {
    /// The workbooks (files, globs, folders, `-` for standard input).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// A folder given as FILE is read with its subfolders, at any depth.
    #[arg(short = 'r', long)]
    recursive: bool,
    /// One JSON object a line (file, name, display_name, sheet,
    /// sheet_position, range, header_rows, totals_rows, columns) instead
    /// of tab-separated columns.
    #[arg(long)]
    json: bool,
}

pub fn tables(args: &TablesArgs) -> Result<(), Failure> {
    let common = Common {
        files: args.files.clone(),
        recursive: args.recursive,
        threads: 1,
        quiet: true,
    };
    let inputs = inputs(&common)?;
    let several = inputs.len() > 1;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let file_header = if several { "file\t" } else { "" };
    let mut header = (!args.json)
        .then(|| format!("{file_header}name\tsheet\trange\theader_rows\ttotals_rows\tcolumns"));
    for input in &inputs {
        let (mut workbook, _) = input.open(true)?;
        let tables = workbook.tables().map_err(|err| input.locate(err))?;
        if let Some(header) = header.take() {
            writeln!(out, "{header}")?;
        }
        let file = file_column(input, several);
        for table in tables {
            let mut columns = Vec::new();
            columns.push(b'[');
            for (at, name) in table.columns.iter().enumerate() {
                if at > 0 {
                    columns.push(b',');
                }
                json_string(&mut columns, name);
            }
            columns.push(b']');
            if args.json {
                let mut line = Vec::new();
                line.extend_from_slice(b"{\"file\":");
                json_string(&mut line, &input.display());
                for (key, value) in [
                    ("name", &table.name),
                    ("display_name", &table.display_name),
                    ("sheet", &table.sheet_name),
                ] {
                    line.extend_from_slice(format!(",\"{key}\":").as_bytes());
                    json_string(&mut line, value);
                }
                line.extend_from_slice(
                    format!(
                        ",\"sheet_position\":{},\"range\":\"{}\",\"header_rows\":{},\"totals_rows\":{},\"columns\":",
                        table.sheet, table.range, table.header_row_count, table.totals_row_count
                    )
                    .as_bytes(),
                );
                line.extend_from_slice(&columns);
                line.extend_from_slice(b"}\n");
                out.write_all(&line)?;
            } else {
                let field = |text: &str| escape(text).replace('\t', "\\t");
                writeln!(
                    out,
                    "{file}{}\t{}\t{}\t{}\t{}\t{}",
                    field(&table.name),
                    field(&table.sheet_name),
                    table.range,
                    table.header_row_count,
                    table.totals_row_count,
                    String::from_utf8_lossy(&columns)
                )?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
