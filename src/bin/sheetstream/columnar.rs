//! `parquet`, `arrow` and `schema`: sheets as typed columns (the library's
//! `arrow` module) into Parquet files, an Arrow IPC stream, or a printed
//! schema.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, ValueEnum};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use sheetstream::arrow::arrow_array::RecordBatch;
use sheetstream::arrow::arrow_schema::SchemaRef;
use sheetstream::arrow::{
    ALL_ROWS, ArrowOptions, BatchReport, ColumnType, ManySheetsReader, OnErrorValue, OnMismatch,
    SheetChoice, SkippedSheet,
};
use sheetstream::{ColumnSpec, SheetRef, Workbook};

use crate::input;
use crate::partial::{Outputs, PartialFile};
use crate::progress::Progress;
use crate::rows::{HeaderRowArg, RowArgs, ShapeArgs, WindowArgs};
use crate::{Failure, worksheet_positions};

/// Open workbooks, each with its file's path as its label.
type Labelled = Vec<(String, Arc<Workbook>)>;

/// How sheets become typed columns: the options every columnar command takes.
#[derive(Args, Clone)]
pub struct TableArgs {
    /// The workbooks (.xlsx, .xlsm, .xlsb, .xls, .ods): files, globs (expanded by sheetstream
    /// when the shell did not), folders (their workbooks, by name), or `-`
    /// for standard input.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// A folder given as FILE is read with its subfolders, at any depth.
    #[arg(short = 'r', long)]
    recursive: bool,
    /// A sheet to read, by name, or by position as `sheets` lists it
    /// (0-based) when no sheet has that name (repeatable; default: the
    /// first worksheet of each file). --sheet-name and --sheet-index say
    /// which outright.
    #[arg(short, long, value_name = "NAME|POSITION",
          conflicts_with_all = ["all", "sheet_name", "sheet_index"])]
    sheet: Vec<String>,
    /// A sheet of this name, exactly (never read as a position; repeatable).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["all", "sheet_index"])]
    sheet_name: Vec<String>,
    /// The sheet at this position as `sheets` lists it (0-based), whatever
    /// the sheets are named (repeatable).
    #[arg(long, value_name = "POSITION", conflicts_with = "all")]
    sheet_index: Vec<usize>,
    /// Every worksheet of each file, read in parallel: each sheet's rows
    /// in order, the batches of different sheets interleaved as the
    /// threads read them (--file-column and --sheet-column tell them
    /// apart); with `-t 1`, one sheet after another, biggest first, the
    /// same order every run.
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    rows: RowArgs,
    #[command(flatten)]
    shape: ShapeArgs,
    #[command(flatten)]
    window: WindowArgs,
    /// Only these columns, in this order: letters and ranges (A:C,F),
    /// 1-based positions (2-4) or header names ("Amount").
    #[arg(long, value_name = "LIST")]
    columns: Option<String>,
    /// Infer the column types from this many data rows, or `all` (every
    /// row: the sheet is read twice, first only for the types).
    #[arg(long, visible_alias = "schema-sample-rows", default_value = "1000",
          value_name = "N|all", value_parser = parse_sample_rows)]
    sample_rows: usize,
    /// Give a column a type instead of the inferred one (repeatable):
    /// bool, int64, float64, utf8, date, timestamp, time, duration.
    #[arg(long, value_name = "NAME=TYPE")]
    dtype: Vec<String>,
    /// A value that does not fit its column's inferred type (a fraction
    /// after whole numbers, a text after the sample): `widen` the column
    /// (parquet to a file reads again with the wider type; a stream, such
    /// as `arrow`, fails, naming the cell and the options that would take
    /// it), `strict` fails, `null` writes null and counts it.
    #[arg(long, value_name = "widen|strict|null", default_value = "widen",
          value_parser = parse_on_mismatch)]
    on_mismatch: OnMismatch,
    /// The same as `--on-mismatch strict`.
    #[arg(long, conflicts_with = "on_mismatch")]
    strict: bool,
    /// Error cells (#DIV/0!, #N/A): `null` (their code in a text column;
    /// counted on stderr) or `strict` (fail).
    #[arg(long, value_name = "null|strict", default_value = "null",
          value_parser = parse_on_error_value)]
    on_error_value: OnErrorValue,
    /// Read text cells equal to this as null (repeatable).
    #[arg(long, value_name = "TEXT")]
    null_value: Vec<String>,
    /// Rows per record batch.
    #[arg(long, default_value_t = 65_536, value_name = "N")]
    batch_size: usize,
    /// Add a column of this name holding each row's file.
    #[arg(long, value_name = "NAME")]
    file_column: Option<String>,
    /// Add a column of this name holding each row's sheet.
    #[arg(long, value_name = "NAME")]
    sheet_column: Option<String>,
    /// Match columns across sheets and files by name (missing ones null)
    /// instead of requiring the same columns everywhere.
    #[arg(long)]
    union_by_name: bool,
    /// Skip sheets and files that cannot be read, and list them on stderr,
    /// instead of failing.
    #[arg(long)]
    skip_unreadable: bool,
    /// Threads: 0 for one per core.
    #[arg(short = 't', long, default_value_t = 0, value_name = "N")]
    threads: usize,
    /// No progress bar and no summary of null-ed cells.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Args)]
pub struct ParquetArgs {
    #[command(flatten)]
    table: TableArgs,
    /// The Parquet file (with --per-sheet, the folder of one file per sheet).
    #[arg(short, long, value_name = "PATH")]
    output: PathBuf,
    /// Compression of the column chunks.
    #[arg(long, value_enum, default_value_t = Codec::Zstd)]
    compression: Codec,
    /// Rows per row group.
    #[arg(long, default_value_t = 1_048_576, value_name = "N")]
    row_group_size: usize,
    /// One Parquet file per sheet, named FILE-SHEET.parquet (SHEET.parquet
    /// with one input file), in the folder given with -o, instead of one
    /// file of every sheet.
    #[arg(long)]
    per_sheet: bool,
}

#[derive(Args)]
pub struct ArrowArgs {
    #[command(flatten)]
    table: TableArgs,
}

#[derive(Args)]
pub struct SchemaArgs {
    #[command(flatten)]
    table: TableArgs,
}

fn parse_sample_rows(text: &str) -> Result<usize, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(ALL_ROWS);
    }
    match text.parse::<usize>() {
        Ok(rows) if rows > 0 => Ok(rows),
        _ => Err(format!(
            "`{text}` is not a number of rows (1 or more) or `all`"
        )),
    }
}

fn parse_on_mismatch(text: &str) -> Result<OnMismatch, String> {
    OnMismatch::parse(text).ok_or_else(|| format!("`{text}` is not one of widen, strict, null"))
}

fn parse_on_error_value(text: &str) -> Result<OnErrorValue, String> {
    OnErrorValue::parse(text).ok_or_else(|| format!("`{text}` is not one of null, strict"))
}

#[derive(Clone, Copy, ValueEnum)]
enum Codec {
    Zstd,
    Snappy,
    None,
}

impl TableArgs {
    fn options(&self) -> Result<ArrowOptions, Failure> {
        let mut options = ArrowOptions::new()
            .header(self.rows.arrow_header())
            .skip_rows(self.rows.skip_rows)
            .n_rows(self.rows.n_rows)
            .schema_sample_rows(self.sample_rows)
            .on_mismatch(if self.strict {
                OnMismatch::Strict
            } else {
                self.on_mismatch
            })
            .on_error_value(self.on_error_value)
            .null_values(self.null_value.iter().cloned())
            .batch_size(self.batch_size)
            .file_column(self.file_column.clone())
            .sheet_column(self.sheet_column.clone())
            .union_by_name(self.union_by_name)
            .skip_unreadable(self.skip_unreadable)
            .threads(self.threads);
        options = self.shape.apply(options);
        if let Some(spec) = &self.columns {
            options = options.columns(ColumnSpec::parse(spec)?);
        }
        options = self.window.apply(options)?;
        for item in &self.dtype {
            let Some((name, ty)) = item.rsplit_once('=') else {
                return Err(Failure::Usage(format!(
                    "--dtype takes NAME=TYPE, not `{item}`"
                )));
            };
            let Some(ty) = ColumnType::parse(ty.trim()) else {
                return Err(Failure::Usage(format!(
                    "unknown type `{ty}` in --dtype (known: bool, int64, float64, utf8, date, timestamp, time, duration)"
                )));
            };
            options = options.dtype(name, ty);
        }
        Ok(options)
    }

    /// The sheets to read from every workbook, for the many-sheet reader
    /// (which finds a name, or a position when no sheet has that name):
    /// call [`TableArgs::check_sheets`] on each workbook first.
    fn choice(&self) -> SheetChoice {
        if let Some(sheet) = self.range_sheet() {
            SheetChoice::Named(vec![SheetRef::Name(sheet)])
        } else if self.all {
            SheetChoice::All
        } else if !self.sheet.is_empty() {
            SheetChoice::Named(self.sheet.iter().cloned().map(SheetRef::Text).collect())
        } else if !self.sheet_name.is_empty() {
            SheetChoice::Named(
                self.sheet_name
                    .iter()
                    .cloned()
                    .map(SheetRef::Name)
                    .collect(),
            )
        } else if !self.sheet_index.is_empty() {
            SheetChoice::Named(
                self.sheet_index
                    .iter()
                    .copied()
                    .map(SheetRef::Position)
                    .collect(),
            )
        } else {
            SheetChoice::First
        }
    }

    /// The positions of the sheets to read from one workbook, as `--sheet`,
    /// `--sheet-name`, `--sheet-index` or `--all` choose them: a usage
    /// error for a sheet it lacks or one that is not a worksheet. Also
    /// what checks [`TableArgs::choice`] against the workbook before it is
    /// read.
    fn positions(&self, workbook: &Workbook) -> Result<Vec<usize>, Failure> {
        let worksheets = || worksheet_positions(workbook).into_iter().map(|(p, _)| p);
        // A table's sheet, or the range's, when no option chose one.
        if let Some(name) = &self.window.table
            && !self.chose_sheets()
        {
            let tables = workbook.tables_shared()?;
            return Ok(vec![sheetstream::Table::find(&tables, name)?.sheet]);
        }
        if let Some(sheet) = self.range_sheet() {
            return Ok(vec![crate::find_worksheet(
                workbook,
                &SheetRef::Name(sheet),
            )?]);
        }
        if self.all {
            return Ok(worksheets().collect());
        }
        let mut chosen = Vec::new();
        for wanted in &self.sheet {
            chosen.push(crate::find_sheet(workbook, wanted)?);
        }
        for wanted in &self.sheet_name {
            let choice = crate::SheetChoice {
                sheet_name: Some(wanted.clone()),
                ..crate::SheetChoice::default()
            };
            chosen.extend(choice.find(workbook)?);
        }
        for &wanted in &self.sheet_index {
            let choice = crate::SheetChoice {
                sheet_index: Some(wanted),
                ..crate::SheetChoice::default()
            };
            chosen.extend(choice.find(workbook)?);
        }
        if chosen.is_empty() {
            chosen.extend(worksheets().take(1));
        }
        Ok(chosen)
    }

    /// Whether an option chose the sheets.
    fn chose_sheets(&self) -> bool {
        self.all
            || !self.sheet.is_empty()
            || !self.sheet_name.is_empty()
            || !self.sheet_index.is_empty()
    }

    /// The sheet `--range` names, when no option chose sheets.
    fn range_sheet(&self) -> Option<String> {
        if self.chose_sheets() {
            return None;
        }
        self.window.range().ok().flatten()?.sheet
    }

    /// Opens every input (files, globs, folders, `-`), counting their
    /// compressed bytes for one progress bar. A failure names its input;
    /// with `--skip-unreadable` an input that cannot be read is skipped
    /// and returned in the list (printed with the reader's skips, once
    /// the read ends: [`drain`]).
    fn open(&self) -> Result<(Labelled, Progress, Vec<SkippedSheet>), Failure> {
        let mut files = Vec::new();
        let mut total = 0;
        let mut skipped = Vec::new();
        for input in input::expand(&self.files, self.recursive)? {
            match input.file() {
                Ok(file) => {
                    total += file.len();
                    files.push((input, file));
                }
                Err(failure) if self.skip_unreadable => skipped.push(skip(&input, failure)?),
                Err(failure) => return Err(failure),
            }
        }
        let progress = Progress::new(total, self.quiet);
        let counted: Vec<_> = files
            .iter()
            .map(|(_, file)| file.clone().with_progress(progress.counter()))
            .collect();
        let opened = sheetstream::open_workbooks(&counted, self.threads, |file| {
            crate::passwords::open_options().from_shared_reader(file.clone())
        });
        let mut workbooks = Vec::new();
        for ((input, _), workbook) in files.into_iter().zip(opened) {
            let workbook =
                workbook
                    .map_err(|err| input.locate(err))
                    .and_then(|workbook| match self.positions(&workbook) {
                        Ok(_) => Ok(workbook),
                        // A sheet the workbook lacks: the reader skips it,
                        // with its own error.
                        Err(Failure::Usage(_)) if self.skip_unreadable => Ok(workbook),
                        Err(failure) => Err(in_file(&input, failure)),
                    });
            match workbook {
                Ok(workbook) => workbooks.push((input.display(), Arc::new(workbook))),
                Err(failure) if self.skip_unreadable => skipped.push(skip(&input, failure)?),
                Err(failure) => return Err(failure),
            }
        }
        Ok((workbooks, progress, skipped))
    }
}

/// A usage failure about one input names it.
fn in_file(input: &input::Input, failure: Failure) -> Failure {
    match failure {
        Failure::Usage(message) => Failure::Usage(format!("{}: {message}", input.display())),
        Failure::Read(err) => input.locate(err),
        other => other,
    }
}

/// An input skipped at open, as the many-sheet reader lists its own
/// skips; a failure that is no read error (a usage error, an output
/// error) is not skipped.
fn skip(input: &input::Input, failure: Failure) -> Result<SkippedSheet, Failure> {
    match failure {
        Failure::ReadFile(_, error) | Failure::Read(error) => Ok(SkippedSheet {
            file: input.display(),
            sheet: String::new(),
            error,
        }),
        other => Err(other),
    }
}

/// Lists a skipped file or sheet on stderr.
fn print_skipped(skipped: &SkippedSheet) {
    let error = crate::in_cli_words(&skipped.error);
    if skipped.sheet.is_empty() {
        eprintln!("sheetstream: skipped {}: {error}", skipped.file);
    } else {
        eprintln!(
            "sheetstream: skipped {} sheet '{}': {error}",
            skipped.file,
            crate::escape(&skipped.sheet)
        );
    }
}

/// Totals of the batch reports, printed to stderr at the end.
#[derive(Default)]
struct Summary {
    rows: u64,
    error_cells: u64,
    coerced_cells: u64,
    dropped_cells: u64,
    first_issue: Option<String>,
    // Hand-made sheets (issue 26).
    hidden_rows_skipped: u64,
    /// Each sheet's header row as the first batch gave it.
    header_rows: Vec<(Option<String>, String, Option<u32>)>,
}

impl Summary {
    fn add(&mut self, report: &BatchReport) {
        self.rows += report.rows as u64;
        self.error_cells += report.error_cells as u64;
        self.coerced_cells += report.coerced_cells as u64;
        self.dropped_cells += report.dropped_cells as u64;
        self.hidden_rows_skipped += report.hidden_rows_skipped as u64;
        if !(self.header_rows.iter())
            .any(|(file, sheet, _)| *file == report.file && *sheet == report.sheet)
        {
            (self.header_rows).push((report.file.clone(), report.sheet.clone(), report.header_row));
        }
        if self.first_issue.is_none()
            && let Some(issue) = report.issues.first()
        {
            let file = report
                .file
                .as_deref()
                .map(|file| format!("{file} "))
                .unwrap_or_default();
            self.first_issue = Some(format!("{file}sheet '{}' {issue}", report.sheet));
        }
    }

    fn merge(&mut self, other: Summary) {
        self.rows += other.rows;
        self.error_cells += other.error_cells;
        self.coerced_cells += other.coerced_cells;
        self.dropped_cells += other.dropped_cells;
        self.hidden_rows_skipped += other.hidden_rows_skipped;
        self.header_rows.extend(other.header_rows);
        if self.first_issue.is_none() {
            self.first_issue = other.first_issue;
        }
    }

    /// What became of the cells that did not arrive as values, in words,
    /// on stderr.
    /// What the hand-made sheets' options did (issue 26), on stderr: the
    /// hidden rows left out, the header rows `--header-row auto` took.
    fn print_shapes(&self, quiet: bool, auto_header: bool) {
        if quiet {
            return;
        }
        if self.hidden_rows_skipped > 0 {
            eprintln!(
                "sheetstream: {} hidden row{} left out (--skip-hidden-rows)",
                self.hidden_rows_skipped,
                if self.hidden_rows_skipped == 1 {
                    ""
                } else {
                    "s"
                }
            );
        }
        if auto_header {
            for (file, sheet, row) in &self.header_rows {
                let file = file.as_deref().map(|f| format!("{f} ")).unwrap_or_default();
                match row {
                    Some(row) => eprintln!(
                        "sheetstream: {file}sheet '{sheet}': header row {} (--header-row auto)",
                        row + 1
                    ),
                    None => eprintln!("sheetstream: {file}sheet '{sheet}': no header row found"),
                }
            }
        }
    }

    fn print(&self, quiet: bool) {
        if quiet || self.error_cells + self.coerced_cells + self.dropped_cells == 0 {
            return;
        }
        let mut parts = Vec::new();
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        if self.error_cells > 0 {
            parts.push(format!(
                "{} null (their code kept in text columns)",
                plural(self.error_cells, "error cell is", "error cells are")
            ));
        }
        if self.coerced_cells > 0 {
            parts.push(format!(
                "{} their column became null (--on-mismatch null)",
                plural(
                    self.coerced_cells,
                    "value that did not fit",
                    "values that did not fit"
                )
            ));
        }
        if self.dropped_cells > 0 {
            parts.push(format!(
                "{} left out",
                plural(
                    self.dropped_cells,
                    "cell outside the columns (or a second one for a column in a row) was",
                    "cells outside the columns (or second ones for a column in a row) were"
                )
            ));
        }
        eprintln!(
            "sheetstream: {}{}",
            parts.join("; "),
            self.first_issue
                .as_ref()
                .map(|issue| format!("; the first: {issue}"))
                .unwrap_or_default()
        );
    }
}

/// Reads with `options` through `attempt`, and again with wider columns
/// while a value does not fit the type its column's sample gave it
/// ([`ArrowOptions::widened_by`]): for outputs written whole before they
/// are used (a Parquet file), which can start over.
fn widening<T>(
    options: ArrowOptions,
    quiet: bool,
    mut attempt: impl FnMut(&ArrowOptions) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let mut options = options;
    loop {
        let err = match attempt(&options) {
            Err(Failure::Read(err)) => err,
            other => return other,
        };
        match options.widened_by(&err) {
            Some(wider) => {
                if !quiet {
                    eprintln!(
                        "sheetstream: {} holds a value wider than its column's sampled type; reading again with the types of every row",
                        err.location()
                    );
                }
                options = wider;
            }
            None => return Err(Failure::Read(err)),
        }
    }
}

fn many(table: &TableArgs) -> Result<(ManySheetsReader, Progress), Failure> {
    let options = table.options()?;
    let (workbooks, progress, skipped) = table.open()?;
    let reader = options
        .read_workbooks(workbooks, table.choice())?
        .with_skipped(skipped);
    Ok((reader, progress))
}

/// Reads every batch into `write` (the first batch, or None, is
/// `first`'s when the caller asked for it already), then lists the
/// skipped files and sheets, also when the read failed: with
/// `--skip-unreadable`, nothing read at all is an error
/// ([`sheetstream::ErrorKind::NothingRead`]) after the list.
fn drain(
    reader: &mut ManySheetsReader,
    summary: &mut Summary,
    first: Option<Option<RecordBatch>>,
    mut write: impl FnMut(RecordBatch) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let result = (|| -> Result<(), Failure> {
        let mut next = match first {
            Some(first) => first,
            None => reader.next_batch()?,
        };
        while let Some(batch) = next {
            summary.add(reader.report());
            // Handed over, and dropped once written, before the next is
            // taken: a batch held while the reader hands over the next one
            // was one batch more at the peak (52 against 46 MB for `arrow`
            // of the 1M x 10 sheet).
            write(batch)?;
            next = reader.next_batch()?;
        }
        Ok(())
    })();
    reader.skipped().iter().for_each(print_skipped);
    result
}

fn output_error(err: impl std::fmt::Display) -> Failure {
    Failure::Output(io::Error::other(err.to_string()))
}

/// A Parquet file being written: to a temporary name beside the output,
/// renamed to it once complete, removed if the write fails (no partial
/// file is left under the output's name: [`PartialFile`]).
struct ParquetFile {
    writer: ArrowWriter<BufWriter<File>>,
    partial: PartialFile,
}

impl ParquetFile {
    fn create(path: &Path, schema: SchemaRef, args: &ParquetArgs) -> Result<ParquetFile, Failure> {
        let compression = match args.compression {
            Codec::Zstd => Compression::ZSTD(ZstdLevel::default()),
            Codec::Snappy => Compression::SNAPPY,
            Codec::None => Compression::UNCOMPRESSED,
        };
        let properties = WriterProperties::builder()
            .set_compression(compression)
            .set_max_row_group_row_count(Some(args.row_group_size.max(1)))
            .build();
        let (partial, file) = PartialFile::create(path)?;
        let writer = ArrowWriter::try_new(
            BufWriter::with_capacity(1 << 20, file),
            schema,
            Some(properties),
        )
        .map_err(output_error)?;
        Ok(ParquetFile { writer, partial })
    }

    /// Writes every batch `fill` hands over, then finishes the file under
    /// its name; on any failure the partial file is removed.
    fn write_all(
        self,
        fill: impl FnOnce(&mut dyn FnMut(RecordBatch) -> Result<(), Failure>) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        Ok(self.write_complete(fill)?.finish()?)
    }

    /// As [`ParquetFile::write_all`], the complete file left under its
    /// temporary name, to be named with the others of the command
    /// ([`Outputs`]).
    fn write_complete(
        mut self,
        fill: impl FnOnce(&mut dyn FnMut(RecordBatch) -> Result<(), Failure>) -> Result<(), Failure>,
    ) -> Result<PartialFile, Failure> {
        let writer = &mut self.writer;
        fill(&mut |batch| writer.write(&batch).map_err(output_error))?;
        self.writer.close().map_err(output_error)?;
        // (On failure the partial file is removed as `self.partial` drops.)
        Ok(self.partial)
    }
}

pub fn parquet(args: &ParquetArgs) -> Result<(), Failure> {
    let table = &args.table;
    if !args.per_sheet {
        let options = table.options()?;
        let (workbooks, progress, skipped) = table.open()?;
        let summary = progress.run(|| {
            widening(options, table.quiet, |options| {
                let mut summary = Summary::default();
                let mut reader = options
                    .read_workbooks(workbooks.clone(), table.choice())?
                    .with_skipped(skipped.clone());
                // The first batch before the file: nothing read (every
                // input skipped) writes no file.
                let first = match reader.next_batch() {
                    Ok(first) => first,
                    Err(err) => {
                        reader.skipped().iter().for_each(print_skipped);
                        return Err(err.into());
                    }
                };
                ParquetFile::create(&args.output, reader.schema(), args)?
                    .write_all(|write| drain(&mut reader, &mut summary, Some(first), write))?;
                Ok(summary)
            })
        })?;
        summary.print(table.quiet);
        summary.print_shapes(
            table.quiet,
            table.rows.header_row == Some(HeaderRowArg::Auto),
        );
        return Ok(());
    }
    let options = table.options()?;
    let (workbooks, progress, skipped) = table.open()?;
    skipped.iter().for_each(print_skipped);
    if workbooks.is_empty() {
        return Err(nothing_read(&skipped));
    }
    // Every sheet's file is named once all are written: a sheet that fails
    // (unless skipped as asked) leaves no file of the command, and no
    // folder it made.
    let mut outputs = Outputs::new();
    outputs.create_dir_all(&args.output)?;
    let one_file = workbooks.len() == 1;
    let mut summary = Summary::default();
    let mut written = 0;
    let mut skipped = skipped;
    progress.run(|| -> Result<(), Failure> {
        for (label, workbook) in workbooks {
            let positions = match table.positions(&workbook) {
                Ok(positions) => positions,
                Err(Failure::Read(error)) if table.skip_unreadable => {
                    let item = SkippedSheet {
                        file: label.clone(),
                        sheet: String::new(),
                        error,
                    };
                    print_skipped(&item);
                    skipped.push(item);
                    continue;
                }
                Err(Failure::Usage(message)) if table.skip_unreadable => {
                    eprintln!("sheetstream: skipped {label}: {message}");
                    continue;
                }
                Err(failure) => return Err(failure),
            };
            let names: Vec<String> = (positions.into_iter())
                .map(|position| workbook.sheets()[position].name().to_owned())
                .collect();
            let stem = Path::new(&label)
                .file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
                .unwrap_or_default();
            for name in names {
                let file_name = if one_file {
                    format!("{}.parquet", safe_name(&name))
                } else {
                    format!("{}-{}.parquet", safe_name(&stem), safe_name(&name))
                };
                let written_sheet = widening(options.clone(), table.quiet, |options| {
                    let mut sheet_summary = Summary::default();
                    let mut reader = options.read_workbooks(
                        vec![(label.clone(), Arc::clone(&workbook))],
                        SheetChoice::Named(vec![SheetRef::Name(name.clone())]),
                    )?;
                    let file =
                        ParquetFile::create(&args.output.join(&file_name), reader.schema(), args)?
                            .write_complete(|write| {
                                drain(&mut reader, &mut sheet_summary, None, write)
                            })?;
                    Ok((sheet_summary, file))
                });
                match written_sheet {
                    Ok((sheet_summary, file)) => {
                        summary.merge(sheet_summary);
                        outputs.add(file);
                        written += 1;
                    }
                    Err(Failure::Read(error)) if table.skip_unreadable => {
                        let item = SkippedSheet {
                            file: label.clone(),
                            sheet: name.clone(),
                            error,
                        };
                        print_skipped(&item);
                        skipped.push(item);
                    }
                    Err(failure) => return Err(failure),
                }
            }
        }
        if written == 0 && !skipped.is_empty() {
            // (The folder made for the files is removed with them.)
            return Err(nothing_read(&skipped));
        }
        Ok(())
    })?;
    outputs.commit()?;
    summary.print(table.quiet);
    summary.print_shapes(
        table.quiet,
        table.rows.header_row == Some(HeaderRowArg::Auto),
    );
    Ok(())
}

/// A sheet or file name as a file name: path separators and other
/// characters file systems refuse replaced by `_`.
fn safe_name(name: &str) -> String {
    name.chars()
        .map(|ch| match ch {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '_',
            ch if ch.is_control() => '_',
            ch => ch,
        })
        .collect()
}

pub fn arrow(args: &ArrowArgs) -> Result<(), Failure> {
    let table = &args.table;
    let (mut reader, progress) = many(table)?;
    let mut summary = Summary::default();
    // The first batch before the stream's header: nothing read (every
    // input skipped) writes nothing.
    let first = progress.run(|| match reader.next_batch() {
        Ok(first) => Ok(first),
        Err(err) => {
            reader.skipped().iter().for_each(print_skipped);
            Err(Failure::from(err))
        }
    })?;
    let stdout = io::stdout();
    let out = BufWriter::with_capacity(1 << 20, stdout.lock());
    let mut writer =
        arrow_ipc::writer::StreamWriter::try_new(out, &reader.schema()).map_err(ipc_error)?;
    progress.run(|| {
        drain(&mut reader, &mut summary, Some(first), |batch| {
            writer.write(&batch).map_err(ipc_error)
        })
    })?;
    writer.finish().map_err(ipc_error)?;
    writer.into_inner().map_err(ipc_error)?.flush()?;
    summary.print(table.quiet);
    summary.print_shapes(
        table.quiet,
        table.rows.header_row == Some(HeaderRowArg::Auto),
    );
    Ok(())
}

/// An IPC error, keeping a closed pipe recognisable.
fn ipc_error(err: sheetstream::arrow::arrow_schema::ArrowError) -> Failure {
    match err {
        sheetstream::arrow::arrow_schema::ArrowError::IoError(_, err) => Failure::Output(err),
        other => output_error(other),
    }
}

/// The options `schema` takes with the other typed commands but that
/// change nothing in a schema, and why.
const NOT_IN_SCHEMA: [(&str, &str, &str); 5] = [
    (
        "batch_size",
        "--batch-size",
        "it sizes the record batches written",
    ),
    (
        "on_mismatch",
        "--on-mismatch",
        "it says what becomes of values read after the sample, which schema does not read",
    ),
    (
        "strict",
        "--strict",
        "it says what becomes of values read after the sample, which schema does not read",
    ),
    (
        "on_error_value",
        "--on-error-value",
        "it says what becomes of error cells when they are written",
    ),
    (
        "union_by_name",
        "--union-by-name",
        "schema prints each sheet's columns, not their union",
    ),
];

/// A usage error for an option given to `schema` that changes nothing there.
pub fn refuse_in_schema(matches: Option<&clap::ArgMatches>) -> Result<(), Failure> {
    let Some(matches) = matches else {
        return Ok(());
    };
    for (id, flag, why) in NOT_IN_SCHEMA {
        if matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine) {
            return Err(Failure::Usage(format!(
                "{flag} changes nothing in `schema`: {why}"
            )));
        }
    }
    Ok(())
}

pub fn schema(args: &SchemaArgs) -> Result<(), Failure> {
    let table = &args.table;
    let options = table.options()?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let inputs = input::expand(&table.files, table.recursive)?;
    let mut skipped = Vec::new();
    for input in &inputs {
        let mut workbook = match input.open(true) {
            Ok((workbook, _)) => workbook,
            Err(failure) if table.skip_unreadable => {
                let item = skip(input, failure)?;
                print_skipped(&item);
                skipped.push(item);
                continue;
            }
            Err(failure) => return Err(failure),
        };
        let positions = table
            .positions(&workbook)
            .map_err(|failure| in_file(input, failure))?;
        for position in positions {
            let name = workbook.sheets()[position].name().to_owned();
            let schema = options
                .infer_schema(&mut workbook, position)
                .map_err(|err| input.locate(err))?;
            if inputs.len() > 1 {
                writeln!(out, "{} sheet {name}", input.display())?;
            } else {
                writeln!(out, "sheet {name}")?;
            }
            for field in schema.fields() {
                writeln!(out, "  {}\t{}", field.name(), field.data_type())?;
            }
        }
    }
    out.flush()?;
    if skipped.len() == inputs.len() {
        return Err(nothing_read(&skipped));
    }
    Ok(())
}

/// The failure of a command that skipped (`--skip-unreadable`) every
/// file and sheet it was given: nothing read, exit status 1 (the
/// many-sheet reader's own error, [`SkippedSheet::nothing_read`]).
fn nothing_read(skipped: &[SkippedSheet]) -> Failure {
    match SkippedSheet::nothing_read(skipped) {
        Some(err) => Failure::Read(err),
        None => Failure::Usage("nothing to read".into()),
    }
}
