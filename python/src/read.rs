//! `sheetstream.read_excel`: one call from files and sheets to one
//! DataFrame (polars, pandas) or pyarrow Table. Workbooks are opened on
//! threads (`sheetstream::open_workbooks`) and every (file, sheet) pair is
//! read on the engine's one pool (the Arrow layer's `ManySheetsReader`),
//! without the GIL; the batches are put back in workbook order (files as
//! given, then sheets) before the table is made.
//!
//! Workbooks are opened by `open_workbooks`, every (file, sheet) pair read on
//! one pool by the Arrow layer's `ManySheetsReader`, batches put back in
//! workbook order; `skip_unreadable`'s `SkippedWarning`; read again with wider
//! types after a misfit.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use sheetstream::arrow::{ArrowOptions, BatchReport, SheetChoice as ManySheets, SkippedSheet};
use sheetstream::{ErrorKind, SheetSelector};

use crate::args::SheetRef;
use crate::arrow_ffi::import_optional;
use crate::errors::{NoDataError, SkippedWarning, to_py_err, to_py_err_hinted};
use crate::opened::Source;
use crate::options::{batch_size_given, options_from_kwargs, whole_table_batch_rows};
use crate::report::{add_report, warn_if_coerced};
use crate::sheet::{table_to_pandas, to_polars_frame, to_pyarrow_table};

/// Which sheets `read_excel` reads of each workbook.
enum SheetChoice {
    /// Every worksheet (`sheet=None`).
    All,
    /// These, by position or name, in each workbook.
    These(Vec<SheetRef>),
}

/// The `sheet` argument: one sheet or a list (None, for every worksheet,
/// is the `Option` around it).
pub(crate) enum SheetArg {
    One(SheetRef),
    Many(Vec<SheetRef>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for SheetArg {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<SheetArg> {
        if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
            let sheets = value
                .try_iter()?
                .map(|item| crate::args::sheet_ref(&item?))
                .collect::<PyResult<_>>()?;
            return Ok(SheetArg::Many(sheets));
        }
        crate::args::sheet_ref(&value).map(SheetArg::One)
    }
}

/// A file or sheet `read_excel` or `scan_excel` (`skip_unreadable=True`) skipped.
#[pyclass(module = "sheetstream", name = "SkippedSheet", frozen, get_all)]
pub(crate) struct PySkippedSheet {
    /// The file (its path, or a label for bytes).
    file: String,
    /// The sheet's name; None when the file itself could not be opened.
    sheet: Option<String>,
    /// Why: the `sheetstream.Error` that reading it raised.
    error: Py<PyAny>,
}

#[pymethods]
impl PySkippedSheet {
    /// A skip, as the readers make them (`scan_excel` makes its own).
    #[new]
    #[pyo3(signature = (file, sheet, error))]
    fn py_new(file: String, sheet: Option<String>, error: Py<PyAny>) -> Self {
        PySkippedSheet { file, sheet, error }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let error = self
            .error
            .bind(py)
            .str()
            .map_or_else(|_| String::new(), |text| text.to_string());
        format!(
            "SkippedSheet(file={:?}, sheet={}, error={error:?})",
            self.file,
            self.sheet
                .as_ref()
                .map_or("None".to_owned(), |sheet| format!("{sheet:?}"))
        )
    }
}

impl PySkippedSheet {
    fn new(py: Python<'_>, skipped: &SkippedSheet) -> Self {
        PySkippedSheet {
            file: skipped.file.clone(),
            sheet: (!skipped.sheet.is_empty()).then(|| skipped.sheet.clone()),
            error: to_py_err(py, &skipped.error).into_value(py).into_any(),
        }
    }
}

/// The skips as Python objects.
fn skipped_list<'py>(py: Python<'py>, skipped: &[SkippedSheet]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for item in skipped {
        list.append(Bound::new(py, PySkippedSheet::new(py, item))?)?;
    }
    Ok(list)
}

/// `scan_excel(skip_unreadable=True)`'s warning: `(file, sheet, error)`
/// of each file or sheet it skipped, as `read_excel`'s.
#[pyfunction]
#[pyo3(name = "_warn_skipped")]
pub(crate) fn warn_skipped_by(
    py: Python<'_>,
    caller: &str,
    skipped: Vec<(String, Option<String>, Py<PyAny>)>,
    stacklevel: usize,
) -> PyResult<()> {
    let skipped = skipped
        .into_iter()
        .map(|(file, sheet, error)| PySkippedSheet { file, sheet, error })
        .collect();
    warn_skipped(py, caller, skipped, stacklevel)
}

/// Warns with a `SkippedWarning` whose `skipped` attribute lists them;
/// `stacklevel` as `warnings.warn` takes it.
fn warn_skipped(
    py: Python<'_>,
    caller: &str,
    skipped: Vec<PySkippedSheet>,
    stacklevel: usize,
) -> PyResult<()> {
    if skipped.is_empty() {
        return Ok(());
    }
    const LISTED: usize = 5;
    let mut message = format!(
        "{caller} skipped {} unreadable {}:",
        skipped.len(),
        if skipped.len() == 1 {
            "file or sheet"
        } else {
            "files or sheets"
        }
    );
    for item in skipped.iter().take(LISTED) {
        let error = item.error.bind(py).str()?;
        match &item.sheet {
            Some(sheet) => message.push_str(&format!(" {} sheet '{sheet}': {error};", item.file)),
            None => message.push_str(&format!(" {}: {error};", item.file)),
        }
    }
    if skipped.len() > LISTED {
        message.push_str(&format!(" and {} more;", skipped.len() - LISTED));
    }
    message.pop();
    message.push_str(" (the warning's `skipped` lists them all)");
    let list = PyList::empty(py);
    for item in skipped {
        list.append(Bound::new(py, item)?)?;
    }
    let warning = py.get_type::<SkippedWarning>().call1((message,))?;
    warning.setattr("skipped", list)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("stacklevel", stacklevel)?;
    py.import("warnings")?
        .call_method("warn", (warning,), Some(&kwargs))?;
    Ok(())
}

/// Reads sheets of one or many workbooks into one polars DataFrame (the
/// default), pyarrow Table or pandas DataFrame.
///
/// `source`: a path, a glob pattern (`"reports/*.xlsx"`), a folder (its
/// workbooks in name order; `recursive=True` for its subfolders), a URL
/// (with `storage_options`), bytes, a binary file object, or a list of
/// these. `sheet`: a 0-based position, a name (a name wins; text that is
/// a whole number names the sheet at that position when no sheet has that
/// name, with a UserWarning when it could have meant another), a list, or
/// None for every worksheet; the sheets of every workbook are united in
/// one frame (`union_by_name`, `file_column`, `sheet_column`).
///
/// Counting: rows and column positions count from 0, as Python does
/// (`header_row=0` is Excel's row 1, `skip_rows=2` leaves out Excel's rows
/// 1 and 2); a `columns` string is the CLI's language, in Excel's terms
/// (`"A:C,F"`, positions from 1); errors name cells as Excel does (`B7`).
///
/// polars' names are taken with polars' meanings: `sheet_id` (from 1; 0
/// or a list gives a dict of frames by sheet name, as polars' does),
/// `sheet_name` (a name, never a position; a list gives a dict),
/// `has_header`, `schema_overrides` (polars' types too),
/// `infer_schema_length`, `columns`, `include_file_paths`, `table_name`,
/// `drop_empty_rows`, `drop_empty_cols` (off by default here),
/// `raise_if_empty` (off by default here: `NoDataError` for a read that
/// holds no cell). pandas' names are `sheetstream.pandas.read_excel`'s.
/// An unknown option is a TypeError naming the nearest one.
///
/// `skip_unreadable=True` skips the files and sheets that cannot be read,
/// with a `SkippedWarning`; when that leaves nothing, `NothingReadError`
/// (its `skipped` lists them). The other options are `Workbook.sheet`'s.
///
/// An encrypted (password-protected) workbook opens with Excel's default
/// password unasked, else with `password`: a `str`, a list of them tried
/// in order, or a callable given each file's path (None for bytes) that
/// returns either, for a glob of files with different passwords. Reading
/// every worksheet checks an encrypted workbook's integrity;
/// `verify_integrity=True` checks it whatever is read.
#[pyfunction]
#[pyo3(signature = (
    source,
    sheet = Some(SheetArg::One(SheetRef::Position(0))),
    *,
    to = "polars",
    union_by_name = false,
    file_column = None,
    sheet_column = None,
    threads = 0,
    skip_unreadable = false,
    storage_options = None,
    password = None,
    verify_integrity = false,
    raise_if_empty = false,
    sheet_name = None,
    sheet_id = None,
    include_file_paths = None,
    **options
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_excel<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    sheet: Option<SheetArg>,
    to: &str,
    union_by_name: bool,
    file_column: Option<String>,
    sheet_column: Option<String>,
    threads: i64,
    skip_unreadable: bool,
    storage_options: Option<&Bound<'py, PyAny>>,
    password: Option<&Bound<'py, PyAny>>,
    verify_integrity: bool,
    raise_if_empty: bool,
    sheet_name: Option<&Bound<'py, PyAny>>,
    sheet_id: Option<&Bound<'py, PyAny>>,
    include_file_paths: Option<String>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let threads = crate::args::thread_count(threads)?;
    // polars' names: one sheet by name (never a position) or by number
    // from 1; the file column. (Several sheets, or sheet_id=0, give a
    // dict of frames: sheetstream.read_excel reads those sheet by sheet.)
    let sheet = match polars_sheet(sheet_name, sheet_id)? {
        Some(named) => Some(SheetArg::One(named)),
        None => sheet,
    };
    let file_column = match (file_column, include_file_paths) {
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(
                "give file_column or include_file_paths, not both (the second is polars' name for the first)",
            ));
        }
        (column, paths) => column.or(paths),
    };
    if !matches!(to, "polars" | "pyarrow" | "pandas") {
        return Err(PyValueError::new_err(format!(
            "to must be \"polars\", \"pyarrow\" or \"pandas\", not {to:?}"
        )));
    }
    let choice = match sheet {
        None => SheetChoice::All,
        Some(SheetArg::One(sheet)) => SheetChoice::These(vec![sheet]),
        Some(SheetArg::Many(sheets)) => SheetChoice::These(sheets),
    };
    let kwargs = options;
    let several_sheets = !matches!(&choice, SheetChoice::These(refs) if refs.len() == 1);
    let batch_size_given = batch_size_given(options)?;
    let options = options_from_kwargs(py, ArrowOptions::new(), options)?;
    let many_sources = source.is_instance_of::<PyList>() || source.is_instance_of::<PyTuple>();
    let sources: Vec<Source> = if many_sources {
        source
            .try_iter()?
            .map(|item| Source::extract_with(&item?, storage_options))
            .collect::<PyResult<_>>()?
    } else {
        vec![Source::extract_with(source, storage_options)?]
    };
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };

    // Open every workbook (in parallel), then read the sheets on the Arrow
    // layer's pool: one schema, columns united by position or by name with
    // types promoted by its rules, file and sheet columns.
    // Each workbook's passwords (a callable is asked per file, here).
    let sources: Vec<(Source, sheetstream::OpenOptions)> = sources
        .into_iter()
        .map(|source| {
            let options = crate::args::open_options(
                password,
                verify_integrity,
                source.path_label().as_deref(),
            )?;
            Ok((source, options))
        })
        .collect::<PyResult<_>>()?;
    let opened = py.detach(|| {
        sheetstream::open_workbooks(&sources, threads, |(source, options)| {
            source.open_any(options)
        })
    });
    let mut workbooks = Vec::with_capacity(sources.len());
    // The files that could not be opened (skip_unreadable), handed to the
    // reader, which lists them first among its own skips.
    let mut skipped_at_open = Vec::new();
    let labels = unique_labels(sources.iter().map(|(source, _)| source.label()));
    for (label, result) in labels.into_iter().zip(opened) {
        match result.map_err(|err| err.with_file(&label)) {
            Ok(workbook) => workbooks.push((label, Arc::new(workbook))),
            Err(error) if skip_unreadable => skipped_at_open.push(SkippedSheet {
                file: label,
                sheet: String::new(),
                error,
            }),
            Err(err) => return Err(to_py_err(py, &err)),
        }
    }
    // A table (or a range naming its sheet) read with the default sheet
    // (0): each workbook's table's sheet, or the range's.
    let default_sheet = matches!(&choice, SheetChoice::These(refs) if matches!(refs.as_slice(), [SheetRef::Position(0)]));
    let mut choice = choice;
    let mut tables_first = false;
    if default_sheet {
        if options.get_table().is_some() {
            // The Arrow layer finds each workbook's table (or fails naming
            // the file, or skips it with skip_unreadable).
            tables_first = true;
            choice = SheetChoice::All;
        } else if let Some(sheet) = options.get_range().and_then(|range| range.sheet.clone()) {
            choice = SheetChoice::These(vec![SheetRef::Name(sheet)]);
        }
    }
    let order = SheetOrder::new(&workbooks, &choice);
    // A chart sheet asked for by position or name has no cells (every
    // worksheet, `sheet=None`, leaves chart sheets out).
    for (label, workbook) in workbooks
        .iter()
        .filter(|_| matches!(choice, SheetChoice::These(_)))
    {
        for position in order.chosen(label) {
            crate::args::readable_sheet(py, &workbook.sheets()[position], Some(label))?;
        }
    }
    let sheet_label = match (&choice, workbooks.as_slice()) {
        (SheetChoice::These(refs), [(label, workbook)]) if refs.len() == 1 => order
            .chosen(label)
            .first()
            .map(|&position| format!("sheet '{}' of {label}", workbook.sheets()[position].name())),
        _ => None,
    }
    .unwrap_or_else(|| "every sheet read".to_owned());
    let sheets = match choice {
        _ if tables_first => ManySheets::First,
        SheetChoice::All => ManySheets::All,
        SheetChoice::These(refs) => {
            ManySheets::Named(refs.into_iter().map(SheetRef::into_library).collect())
        }
    };
    let leading = usize::from(file_column.is_some()) + usize::from(sheet_column.is_some());
    let options = options
        .union_by_name(union_by_name)
        .file_column(file_column)
        .sheet_column(sheet_column)
        .skip_unreadable(skip_unreadable)
        .threads(threads);
    // The one workbook's label, for errors of its sheets that lack it.
    let one_workbook = match workbooks.as_slice() {
        [(label, _)] => Some(label.clone()),
        _ => None,
    };
    // A value that does not fit its column's type widens the column: the
    // sheets are read again with the wider types (`ArrowOptions::widened_by`)
    // until every value fits or the error cannot be widened away.
    let mut options = options;
    let mut coerced = BatchReport::default();
    let (schema, batches, skipped) = loop {
        // The headers and samples.
        let mut reader = py
            .detach(|| options.read_workbooks(workbooks.clone(), sheets.clone()))
            .map(|reader| reader.with_skipped(skipped_at_open.clone()))
            .map_err(|err| {
                let err = match &one_workbook {
                    Some(label) => err.with_file(label),
                    None => err,
                };
                let hint = (one_workbook.is_some() && several_sheets && !union_by_name)
                    .then_some(UNION_HINT)
                    .filter(|_| matches!(err.kind(), ErrorKind::ColumnSelection(message) if message.contains("union_by_name")));
                to_py_err_hinted(py, &err, hint)
            })?;
        let schema = arrow_array::RecordBatchReader::schema(&reader);
        // A header row or column position past the end is an error.
        crate::args::check_schema(&schema, leading, kwargs, &sheet_label)?;
        let read = py.detach(|| {
            let reader = &mut reader;
            // A wide table in bigger batches (see `whole_table_batch_rows`),
            // set before the first batch.
            if let Some(rows) =
                whole_table_batch_rows(schema.fields().len()).filter(|_| !batch_size_given)
            {
                reader.set_batch_size(rows)?;
            }
            // Batches of different sheets arrive as the pool finishes
            // them; those of one sheet in order (a stable sort keeps it).
            let mut batches = Vec::new();
            coerced = BatchReport::default();
            while let Some(batch) = reader.next_batch()? {
                let report = reader.report();
                if coerced.coerced_cells + coerced.dropped_cells == 0 {
                    coerced.file = report.file.clone();
                    coerced.sheet = report.sheet.clone();
                }
                add_report(&mut coerced, report);
                batches.push((order.rank(report.file.as_deref(), &report.sheet), batch));
            }
            batches.sort_by_key(|(rank, _)| *rank);
            let batches: Vec<_> = batches.into_iter().map(|(_, batch)| batch).collect();
            Ok::<_, sheetstream::Error>(batches)
        });
        match read {
            Ok(batches) => break (schema, batches, reader.skipped().to_vec()),
            // Every file and sheet skipped: the error lists them.
            Err(err) if matches!(err.kind(), ErrorKind::NothingRead(_)) => {
                let py_err = to_py_err(py, &err);
                py_err
                    .value(py)
                    .setattr("skipped", skipped_list(py, reader.skipped())?)?;
                return Err(py_err);
            }
            Err(err) => match options.widened_by(&err) {
                Some(wider) => options = wider,
                None => return Err(to_py_err(py, &err)),
            },
        }
    };
    if raise_if_empty {
        let rows: usize = batches.iter().map(|batch| batch.num_rows()).sum();
        if rows == 0 && schema.fields().len() <= leading {
            return Err(NoDataError::new_err(format!(
                "no data: {sheet_label} holds no cell (raise_if_empty=True; \
                 raise_if_empty=False gives an empty frame)"
            )));
        }
    }
    // 2: the caller of sheetstream.read_excel, the Python function that
    // expands glob patterns.
    warn_if_coerced(py, &coerced, 2)?;
    let frame = match to {
        "polars" => to_polars_frame(py, schema, batches),
        _ => finish_table(py, to_pyarrow_table(py, schema, batches)?, to),
    }?;
    // Level 1 is the Python wrapper in sheetstream/__init__.py; 2 its caller.
    let skipped = skipped.iter().map(|item| PySkippedSheet::new(py, item));
    warn_skipped(py, "read_excel", skipped.collect(), 2)?;
    Ok(frame)
}

/// polars' `sheet_name` (one name) or `sheet_id` (one number from 1) as
/// the sheet to read; None when neither is given.
fn polars_sheet(
    sheet_name: Option<&Bound<'_, PyAny>>,
    sheet_id: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<SheetRef>> {
    let sheet_name = sheet_name.filter(|value| !value.is_none());
    let sheet_id = sheet_id.filter(|value| !value.is_none());
    match (sheet_name, sheet_id) {
        (Some(_), Some(_)) => Err(PyTypeError::new_err(
            "give sheet_name or sheet_id, not both (as polars' read_excel)",
        )),
        (Some(name), None) => {
            let name: String = name.extract().map_err(|_| {
                PyTypeError::new_err(
                    "sheet_name here is one sheet's name (str); a list gives a dict of frames \
                     (through sheetstream.read_excel)",
                )
            })?;
            Ok(Some(SheetRef::ExactName(name)))
        }
        (None, Some(id)) => {
            let id: usize = crate::args::non_negative(id, "sheet_id", " (1 is the first sheet)")?;
            if id == 0 {
                return Err(PyValueError::new_err(
                    "sheet_id=0 gives a dict of every sheet's frame (through sheetstream.read_excel)",
                ));
            }
            Ok(Some(SheetRef::Position(id - 1)))
        }
        (None, None) => Ok(None),
    }
}

/// What the error of sheets whose columns differ adds: the other shape.
const UNION_HINT: &str = "; or sheetstream.read_excel_sheets() for a dict of frames by sheet name";

/// The sources' labels (the `file` column), with " #2", " #3", ... after
/// a label met before (a file given twice, two byte strings of one
/// length), so that each workbook's batches can be told apart.
fn unique_labels(labels: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    labels
        .map(|label| {
            let count = seen.entry(label.clone()).or_insert(0);
            *count += 1;
            if *count == 1 {
                label
            } else {
                format!("{label} #{count}")
            }
        })
        .collect()
}

/// Where a sheet's batches go in the result: files in the order given,
/// then sheets in workbook order (every worksheet) or in the order asked.
struct SheetOrder {
    ranks: HashMap<(String, String), (usize, usize)>,
    /// (label, sheet name) to (rank, position).
    positions: HashMap<(String, String), (usize, usize)>,
}

impl SheetOrder {
    fn new<R>(workbooks: &[(String, Arc<sheetstream::Workbook<R>>)], choice: &SheetChoice) -> Self {
        let mut ranks = HashMap::new();
        let mut positions = HashMap::new();
        for (file, (label, workbook)) in workbooks.iter().enumerate() {
            let sheets = workbook.sheets();
            // As the Arrow layer resolves a wanted sheet.
            let wanted: Option<Vec<Option<usize>>> = match choice {
                SheetChoice::All => None,
                SheetChoice::These(refs) => Some(
                    refs.iter()
                        .map(|wanted| wanted.clone().into_library().position(sheets).ok())
                        .collect(),
                ),
            };
            for sheet in sheets {
                let position = sheet.position();
                let rank = match &wanted {
                    None => Some(position),
                    Some(wanted) => wanted.iter().position(|&at| at == Some(position)),
                };
                if let Some(rank) = rank {
                    ranks.insert((label.clone(), sheet.name().to_owned()), (file, rank));
                    positions.insert((label.clone(), sheet.name().to_owned()), (rank, position));
                }
            }
        }
        SheetOrder { ranks, positions }
    }

    /// The positions of the sheets chosen of the workbook labelled so, in
    /// the order asked for.
    fn chosen(&self, label: &str) -> Vec<usize> {
        let mut chosen: Vec<(usize, usize)> = self
            .positions
            .iter()
            .filter(|((file, _), _)| file == label)
            .map(|(_, &(rank, position))| (rank, position))
            .collect();
        chosen.sort_unstable();
        chosen.into_iter().map(|(_, position)| position).collect()
    }

    fn rank(&self, file: Option<&str>, sheet: &str) -> (usize, usize) {
        file.and_then(|file| self.ranks.get(&(file.to_owned(), sheet.to_owned())))
            .copied()
            .unwrap_or((usize::MAX, usize::MAX))
    }
}

fn finish_table<'py>(
    py: Python<'py>,
    table: Bound<'py, PyAny>,
    to: &str,
) -> PyResult<Bound<'py, PyAny>> {
    if to == "pandas" {
        import_optional(py, "pandas", "pandas")?;
        return table_to_pandas(py, &table, None);
    }
    Ok(table)
}
