//! A DuckDB loadable extension: `read_sheet`, the sheets of Excel
//! workbooks (`.xlsx`, `.xlsb`, `.xls`) as a table, read through
//! sheetstream's Arrow layer.
//!
//! ```sql
//! LOAD 'target/release/sheetstream.duckdb_extension';
//! SELECT filename, sum(Amount) FROM read_sheet('reports/*.xlsx', union_by_name := true, filename := true)
//! GROUP BY filename;
//! ```
//!
//! Built on DuckDB's C extension API (the `duckdb` crate's
//! `loadable-extension` feature: the function table is handed over at load
//! time), so nothing of DuckDB is compiled or linked; the file DuckDB loads
//! is the cdylib with the metadata footer `scripts/package.py` appends.
//!
//! How it reads: bind opens the files (once: init reuses them) and reads
//! each sheet's header and sample (the first pass of
//! [`ArrowOptions::read_workbooks`]), which gives the columns and their
//! types. Init knows the columns the query uses
//! (projection pushdown): the reader is made again with those as its
//! [`ArrowOptions::output_columns`], so the other columns' cells are
//! dropped by the row reader before they are read. The (file, sheet)
//! work items run on sheetstream's own pool (as many threads as DuckDB's
//! `threads` setting), which hands over Arrow batches; DuckDB's threads
//! (`max_threads` the same) take them from that one reader and each
//! copies its batch slices into DuckDB vectors, so the copying is parallel
//! too.

use std::error::Error;
use std::sync::{Arc, Mutex, PoisonError};

use duckdb::arrow::array::{Array, ArrayRef, RecordBatch, RecordBatchOptions, new_null_array};
use duckdb::arrow::compute::cast;
use duckdb::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use duckdb::core::{DataChunkHandle, LogicalTypeHandle, LogicalTypeId};
use duckdb::vtab::{
    BindInfo, InitInfo, TableFunctionInfo, VTab, Value, record_batch_to_duckdb_data_chunk,
};
use duckdb::{Connection, duckdb_entrypoint_c_api};
use sheetstream::arrow::{
    ALL_ROWS, ArrowOptions, ColumnType, Header, ManySheetsReader, OnMismatch, SheetChoice,
};
use sheetstream::{ColumnSelector, ColumnSpec, OpenOptions, SheetRef, Workbook};

type BoxError = Box<dyn Error>;

/// DuckDB's vector size (`STANDARD_VECTOR_SIZE`): the most rows one call
/// may hand out.
const VECTOR_SIZE: usize = 2048;

/// Rows per Arrow batch from the reader: a few DuckDB vectors, so that a
/// batch is handed over through the channel once per 8 chunks.
const BATCH_ROWS: usize = 8 * VECTOR_SIZE;

/// The table function `read_sheet`.
pub struct ReadSheet;

/// What bind found: the files, the options, and the table's columns.
pub struct Bound {
    /// The workbooks, open (their sheet lists, styles and shared strings
    /// read once, at bind), each with its path.
    workbooks: Vec<(String, Arc<Workbook>)>,
    sheets: SheetChoice,
    options: ArrowOptions,
    /// The table's columns, in order: the file column first when asked
    /// for, then the sheet column, then the sheets' united columns.
    schema: SchemaRef,
    /// How many of the schema's leading columns are the file and sheet
    /// columns.
    constants: usize,
    columns: Constants,
    /// The reader bind made (headers and samples read, no batch yet):
    /// taken by init when the query uses every column.
    reader: Mutex<Option<ManySheetsReader>>,
    threads: usize,
}

/// Which of the file and sheet columns the table has.
#[derive(Debug, Clone, Copy, Default)]
struct Constants {
    file: bool,
    sheet: bool,
}

/// One scan: the reader shared by DuckDB's threads and the batch being
/// handed out.
pub struct Scan {
    state: Mutex<ScanState>,
    /// Per output vector, the reader's batch column it takes (None: a
    /// column DuckDB asks for that is no column of ours, the row id).
    sources: Vec<Option<usize>>,
    /// The DuckDB-side schema of a chunk (types as written into vectors).
    chunk_schema: SchemaRef,
}

struct ScanState {
    reader: ManySheetsReader,
    batch: Option<RecordBatch>,
    offset: usize,
    done: bool,
}

impl VTab for ReadSheet {
    type BindData = Bound;
    type InitData = Scan;

    fn bind(bind: &BindInfo) -> Result<Bound, BoxError> {
        let files = expand_sources(&bind.get_parameter(0))?;
        let (options, sheets, columns) = parse_options(bind)?;
        let threads = bind
            .get_config_option("threads")
            .map(|value| value.to_int64())
            .filter(|&threads| threads > 0)
            .map_or(1, |threads| threads as usize);
        let options = options.threads(threads).batch_size(BATCH_ROWS);
        let all_varchar = named_bool(bind, "all_varchar")?.unwrap_or(false);
        let types = column_types(bind)?;
        if all_varchar && types.is_some() {
            return Err("read_sheet: give all_varchar or types, not both".into());
        }
        let options = match &types {
            Some(ColumnTypes::ByName(named)) => options.dtypes(named.iter().cloned()),
            _ => options,
        };
        let passwords = match bind
            .get_named_parameter("password")
            .filter(|v| !v.is_null())
        {
            Some(value) => texts(&value),
            None => Vec::new(),
        };
        let workbooks = open(&files, threads, &passwords)?;
        let mut reader = options.read_workbooks(workbooks.clone(), sheets.clone())?;
        let constants = usize::from(columns.file) + usize::from(columns.sheet);
        let options = match types {
            Some(ColumnTypes::ByPosition(listed)) => {
                // The names from the first read, then read again with the
                // types given to the columns in order.
                let schema = reader.schema();
                let names: Vec<String> = (schema.fields().iter().skip(constants))
                    .map(|field| field.name().clone())
                    .collect();
                if listed.len() > names.len() {
                    return Err(format!(
                        "read_sheet: types lists {} types for {} columns ({})",
                        listed.len(),
                        names.len(),
                        names.join(", ")
                    )
                    .into());
                }
                let options = options.dtypes(names.into_iter().zip(listed));
                reader = options.read_workbooks(workbooks.clone(), sheets.clone())?;
                options
            }
            _ => options,
        };
        let options = if all_varchar {
            // Every column text: the names from the first read, then read
            // again with each one's type given.
            let schema = reader.schema();
            let overrides = (schema.fields().iter().skip(constants))
                .map(|field| (field.name().clone(), ColumnType::Utf8));
            let options = options.dtypes(overrides);
            reader = options.read_workbooks(workbooks.clone(), sheets.clone())?;
            options
        } else {
            options
        };
        let schema = reader.schema();
        for field in schema.fields() {
            bind.add_result_column(field.name(), duckdb_type(field.data_type())?);
        }
        Ok(Bound {
            workbooks,
            sheets,
            options,
            schema,
            constants,
            columns,
            reader: Mutex::new(Some(reader)),
            threads,
        })
    }

    fn init(init: &InitInfo) -> Result<Scan, BoxError> {
        // SAFETY of the cast: DuckDB hands init the bind data bind made.
        let bound = init_bind_data(init);
        let fields = bound.schema.fields();
        let wanted: Vec<Option<usize>> = init
            .get_column_indices()
            .into_iter()
            .map(|id| usize::try_from(id).ok().filter(|&id| id < fields.len()))
            .collect();
        let every = wanted.len() == fields.len()
            && wanted.iter().enumerate().all(|(at, id)| *id == Some(at));
        let taken = if every {
            lock(&bound.reader).take()
        } else {
            None
        };
        let (reader, sources) = match taken {
            Some(reader) => (reader, wanted.clone()),
            None => {
                // The reader again, with only the columns the query uses:
                // the file and sheet columns when asked for, the sheets'
                // columns as the projection (an empty one still counts
                // the rows).
                let used = |at: usize| wanted.contains(&Some(at));
                let mut options = bound.options.clone();
                let mut reader_columns: Vec<usize> = Vec::new();
                let mut at = 0;
                if bound.columns.file {
                    if used(at) {
                        reader_columns.push(at);
                    } else {
                        options = options.file_column(None::<String>);
                    }
                    at += 1;
                }
                if bound.columns.sheet {
                    if used(at) {
                        reader_columns.push(at);
                    } else {
                        options = options.sheet_column(None::<String>);
                    }
                }
                let projected: Vec<usize> = (bound.constants..fields.len())
                    .filter(|&at| used(at))
                    .collect();
                options = options.output_columns(Some(
                    projected
                        .iter()
                        .map(|&at| fields[at].name().clone())
                        .collect(),
                ));
                reader_columns.extend(projected);
                let reader =
                    options.read_workbooks(bound.workbooks.clone(), bound.sheets.clone())?;
                // Each output vector's column in the new reader's batches.
                let sources = wanted
                    .iter()
                    .map(|id| id.and_then(|id| reader_columns.iter().position(|&own| own == id)))
                    .collect();
                (reader, sources)
            }
        };
        let chunk_fields: Vec<Field> = wanted
            .iter()
            .map(|id| match id {
                Some(id) => {
                    let field = &fields[*id];
                    Field::new(field.name(), duckdb_arrow_type(field.data_type()), true)
                }
                None => Field::new("rowid", DataType::Int64, true),
            })
            .collect();
        init.set_max_threads(bound.threads as u64);
        Ok(Scan {
            state: Mutex::new(ScanState {
                reader,
                batch: None,
                offset: 0,
                done: false,
            }),
            sources,
            chunk_schema: Arc::new(Schema::new(chunk_fields)),
        })
    }

    fn func(func: &TableFunctionInfo<Self>, output: &mut DataChunkHandle) -> Result<(), BoxError> {
        let scan = func.get_init_data();
        let Some(slice) = next_slice(scan)? else {
            output.set_len(0);
            return Ok(());
        };
        let rows = slice.num_rows();
        let columns: Vec<ArrayRef> = scan
            .sources
            .iter()
            .zip(scan.chunk_schema.fields())
            .map(|(source, field)| match source {
                Some(at) => to_duckdb_array(slice.column(*at), field.data_type()),
                None => Ok(new_null_array(&DataType::Int64, rows)),
            })
            .collect::<Result<_, _>>()?;
        let chunk = RecordBatch::try_new_with_options(
            Arc::clone(&scan.chunk_schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        record_batch_to_duckdb_data_chunk(&chunk, output)?;
        output.set_len(rows);
        Ok(())
    }

    fn supports_pushdown() -> bool {
        true
    }

    fn parameters() -> Option<Vec<LogicalTypeHandle>> {
        Some(vec![LogicalTypeHandle::from(LogicalTypeId::Any)])
    }

    fn named_parameters() -> Option<Vec<(String, LogicalTypeHandle)>> {
        let any = || LogicalTypeHandle::from(LogicalTypeId::Any);
        let boolean = || LogicalTypeHandle::from(LogicalTypeId::Boolean);
        let bigint = || LogicalTypeHandle::from(LogicalTypeId::Bigint);
        Some(vec![
            ("sheet".into(), any()),
            ("header".into(), boolean()),
            ("columns".into(), any()),
            ("all_varchar".into(), boolean()),
            ("union_by_name".into(), boolean()),
            ("filename".into(), any()),
            ("sheet_column".into(), any()),
            ("sample_size".into(), bigint()),
            ("skip".into(), bigint()),
            ("nullstr".into(), any()),
            ("ignore_errors".into(), boolean()),
            // Encrypted workbooks: a password or a list of them.
            ("password".into(), any()),
            // read_csv's names for the column types: one option, three
            // spellings.
            ("types".into(), any()),
            ("dtypes".into(), any()),
            ("column_types".into(), any()),
        ])
    }
}

/// The bind data of an init call.
fn init_bind_data(init: &InitInfo) -> &Bound {
    let data = init.get_bind_data::<Bound>();
    // SAFETY: DuckDB keeps the bind data alive for as long as the scan's init
    // data, and init only reads it.
    #[allow(unsafe_code)]
    unsafe {
        &*data
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The next at most `VECTOR_SIZE` rows of any sheet, or None after the last.
fn next_slice(scan: &Scan) -> Result<Option<RecordBatch>, BoxError> {
    let mut state = lock(&scan.state);
    loop {
        if state.done {
            return Ok(None);
        }
        if let Some(batch) = &state.batch
            && state.offset < batch.num_rows()
        {
            let rows = (batch.num_rows() - state.offset).min(VECTOR_SIZE);
            let slice = batch.slice(state.offset, rows);
            state.offset += rows;
            return Ok(Some(slice));
        }
        // The batch read through is dropped before the next is taken: held
        // while the reader hands over the next one, it was one batch more at
        // the peak (as in the CLI's `arrow`, issue 48).
        state.batch = None;
        match state.reader.next_batch() {
            Ok(Some(batch)) => {
                state.batch = Some(batch);
                state.offset = 0;
            }
            Ok(None) => {
                state.done = true;
                state.batch = None;
            }
            Err(err) => {
                state.done = true;
                return Err(explain(err).into());
            }
        }
    }
}

/// An error's text; for a value that does not fit its column, the
/// options that would take it in read_sheet's words (the library's
/// message names those of the Rust, Python and CLI interfaces).
fn explain(err: sheetstream::Error) -> String {
    let text = err.to_string();
    let sheetstream::ErrorKind::Mismatch { detail, .. } = err.kind() else {
        return text;
    };
    // The detail: "(type, where the type came from); advice".
    let Some((why, _)) = detail.split_once("); ") else {
        return text;
    };
    format!(
        "{}; read_sheet: sample_size := -1 infers the types from every row, \
         all_varchar := true reads every column as text, ignore_errors := true makes such values NULL",
        text.replacen(detail.as_str(), &format!("{why})"), 1)
    )
}

/// The DuckDB type of an Arrow layer column.
fn duckdb_type(data_type: &DataType) -> Result<LogicalTypeHandle, BoxError> {
    let id = match data_type {
        DataType::Boolean => LogicalTypeId::Boolean,
        DataType::Int64 => LogicalTypeId::Bigint,
        DataType::Float64 => LogicalTypeId::Double,
        DataType::Utf8 | DataType::Null => LogicalTypeId::Varchar,
        DataType::Date32 => LogicalTypeId::Date,
        DataType::Timestamp(_, None) => LogicalTypeId::Timestamp,
        DataType::Time32(_) | DataType::Time64(_) => LogicalTypeId::Time,
        DataType::Duration(_) => LogicalTypeId::Interval,
        other => return Err(format!("no DuckDB type for the Arrow type {other}").into()),
    };
    Ok(LogicalTypeHandle::from(id))
}

/// The Arrow type written into a DuckDB vector of a column of this type:
/// timestamps in microseconds (DuckDB's TIMESTAMP), an all-null column as
/// text (VARCHAR, as DuckDB's readers type an empty column).
fn duckdb_arrow_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Timestamp(_, None) => DataType::Timestamp(TimeUnit::Microsecond, None),
        DataType::Null => DataType::Utf8,
        other => other.clone(),
    }
}

fn to_duckdb_array(array: &ArrayRef, target: &DataType) -> Result<ArrayRef, BoxError> {
    Ok(match (array.data_type(), target) {
        (DataType::Null, _) => new_null_array(target, array.len()),
        (own, target) if own == target => Arc::clone(array),
        _ => cast(array, target)?,
    })
}

/// Opens the files on threads, an encrypted one with `passwords` (after
/// Excel's default password); an error names its file.
fn open(
    files: &[String],
    threads: usize,
    passwords: &[String],
) -> Result<Vec<(String, Arc<Workbook>)>, BoxError> {
    let options = OpenOptions::new().passwords(passwords.iter().cloned());
    let opened = sheetstream::open_workbooks(files, threads, |file| options.open(file));
    files
        .iter()
        .zip(opened)
        .map(|(file, opened)| match opened {
            Ok(workbook) => Ok((file.clone(), Arc::new(workbook))),
            Err(err) => Err(err.with_file(file).to_string().into()),
        })
        .collect()
}

/// The files of the first argument: a path, a glob or a list of them.
fn expand_sources(value: &Value) -> Result<Vec<String>, BoxError> {
    let patterns: Vec<String> = match value.to_list() {
        Some(items) => items.iter().map(Value::to_string).collect(),
        None if value.is_null() => return Err("read_sheet: the path is NULL".into()),
        None => vec![value.to_string()],
    };
    let mut files = Vec::new();
    for pattern in patterns {
        if pattern.contains(['*', '?', '[']) {
            let mut matched: Vec<String> = glob::glob(&pattern)
                .map_err(|err| format!("read_sheet: bad glob '{pattern}': {err}"))?
                .filter_map(Result::ok)
                .filter(|path| path.is_file())
                .map(|path| path.display().to_string())
                .collect();
            if matched.is_empty() {
                return Err(format!("read_sheet: no file matches '{pattern}'").into());
            }
            matched.sort();
            files.append(&mut matched);
        } else {
            files.push(pattern);
        }
    }
    if files.is_empty() {
        return Err("read_sheet: no file given".into());
    }
    Ok(files)
}

fn named_bool(bind: &BindInfo, name: &str) -> Result<Option<bool>, BoxError> {
    Ok(bind
        .get_named_parameter(name)
        .filter(|value| !value.is_null())
        .map(|value| value.to_bool()))
}

fn named_int(bind: &BindInfo, name: &str) -> Option<i64> {
    bind.get_named_parameter(name)
        .filter(|value| !value.is_null())
        .map(|value| value.to_int64())
}

/// A text or a list of texts.
fn texts(value: &Value) -> Vec<String> {
    match value.to_list() {
        Some(items) => items.iter().map(Value::to_string).collect(),
        None => vec![value.to_string()],
    }
}

/// A sheet or a list of sheets: an integer is a position (0-based), a
/// text names a sheet by the library's rule (a name, or a position when
/// no sheet has that name).
fn sheet_refs(value: &Value) -> Vec<SheetRef> {
    let one = |value: &Value| match value.logical_type_id() {
        LogicalTypeId::Tinyint
        | LogicalTypeId::Smallint
        | LogicalTypeId::Integer
        | LogicalTypeId::Bigint
        | LogicalTypeId::UTinyint
        | LogicalTypeId::USmallint
        | LogicalTypeId::UInteger
        | LogicalTypeId::UBigint
            if value.to_int64() >= 0 =>
        {
            SheetRef::Position(value.to_int64() as usize)
        }
        _ => SheetRef::Text(value.to_string()),
    };
    match value.to_list() {
        Some(items) => items.iter().map(one).collect(),
        None => vec![one(value)],
    }
}

/// A column named by `true` (the default name) or by a text.
fn column_name(value: &Value, default: &str) -> Option<String> {
    match value.logical_type_id() {
        LogicalTypeId::Boolean => value.to_bool().then(|| default.to_owned()),
        _ => Some(value.to_string()),
    }
}

/// The named parameters as Arrow layer options and the sheets to read.
fn parse_options(bind: &BindInfo) -> Result<(ArrowOptions, SheetChoice, Constants), BoxError> {
    let mut options = ArrowOptions::new();
    let mut constants = Constants::default();
    let sheets = match bind.get_named_parameter("sheet").filter(|v| !v.is_null()) {
        None => SheetChoice::First,
        Some(value) if texts(&value) == ["*"] => SheetChoice::All,
        Some(value) => SheetChoice::Named(sheet_refs(&value)),
    };
    if let Some(header) = named_bool(bind, "header")? {
        options = options.header(if header {
            Header::FirstNonEmpty
        } else {
            Header::None
        });
    }
    if let Some(value) = bind.get_named_parameter("columns").filter(|v| !v.is_null()) {
        let spec = match value.to_list() {
            Some(items) => ColumnSpec::from_selectors(
                items
                    .iter()
                    .map(|item| ColumnSelector::Name(item.to_string())),
            ),
            None => ColumnSpec::parse(&value.to_string())?,
        };
        options = options.columns(spec);
    }
    if let Some(union) = named_bool(bind, "union_by_name")? {
        options = options.union_by_name(union);
    }
    if let Some(value) = bind
        .get_named_parameter("filename")
        .filter(|v| !v.is_null())
    {
        let name = column_name(&value, "filename");
        constants.file = name.is_some();
        options = options.file_column(name);
    }
    if let Some(value) = bind
        .get_named_parameter("sheet_column")
        .filter(|v| !v.is_null())
    {
        let name = column_name(&value, "sheet");
        constants.sheet = name.is_some();
        options = options.sheet_column(name);
    }
    if let Some(rows) = named_int(bind, "sample_size") {
        options = options.schema_sample_rows(match rows {
            -1 => ALL_ROWS,
            rows if rows > 0 => rows as usize,
            _ => return Err("read_sheet: sample_size must be positive or -1 (every row)".into()),
        });
    }
    if let Some(rows) = named_int(bind, "skip") {
        let rows = u32::try_from(rows).map_err(|_| "read_sheet: skip must be 0 or more")?;
        options = options.skip_rows(rows);
    }
    if let Some(value) = bind.get_named_parameter("nullstr").filter(|v| !v.is_null()) {
        options = options.null_values(texts(&value));
    }
    if named_bool(bind, "ignore_errors")? == Some(true) {
        options = options.on_mismatch(OnMismatch::Null);
    }
    Ok((options, sheets, constants))
}

/// The column types given by `types` (or `dtypes`, `column_types`).
enum ColumnTypes {
    /// `types := ['VARCHAR', 'DOUBLE']`: the first columns, in order.
    ByPosition(Vec<ColumnType>),
    /// `types := {'name': 'VARCHAR'}`: columns by name.
    ByName(Vec<(String, ColumnType)>),
}

/// `types`, `dtypes` or `column_types` (read_csv's spellings): a list of
/// type names (by position) or a struct of column names to type names.
/// The crate gives no safe access to a STRUCT value's fields (its
/// `Value` has only the primitive getters and `to_list`), so the struct is
/// read from DuckDB's own rendering of it, `{'name': VARCHAR, ...}`,
/// strictly: anything else is an error that says so.
fn column_types(bind: &BindInfo) -> Result<Option<ColumnTypes>, BoxError> {
    let mut given = None;
    for name in ["types", "dtypes", "column_types"] {
        if let Some(value) = bind.get_named_parameter(name).filter(|v| !v.is_null()) {
            if given.is_some() {
                return Err("read_sheet: give one of types, dtypes and column_types".into());
            }
            given = Some(value);
        }
    }
    let Some(value) = given else {
        return Ok(None);
    };
    if let Some(items) = value.to_list() {
        let types = items
            .iter()
            .map(|item| duckdb_column_type(&item.to_string()))
            .collect::<Result<_, _>>()?;
        return Ok(Some(ColumnTypes::ByPosition(types)));
    }
    if value.logical_type_id() == LogicalTypeId::Struct {
        let text = value.to_string();
        let pairs = parse_struct_text(&text).ok_or_else(|| {
            format!("read_sheet: types {text} could not be read; give a struct of column names to type names, e.g. {{'amount': 'DOUBLE'}}, or a list of type names")
        })?;
        let types = pairs
            .into_iter()
            .map(|(name, ty)| Ok((name, duckdb_column_type(&ty)?)))
            .collect::<Result<_, BoxError>>()?;
        return Ok(Some(ColumnTypes::ByName(types)));
    }
    Err(format!(
        "read_sheet: types must be a struct of column names to type names, e.g. {{'amount': 'DOUBLE'}}, or a list of type names, not {value}"
    )
    .into())
}

/// A DuckDB type name as the column type the reader makes.
fn duckdb_column_type(name: &str) -> Result<ColumnType, BoxError> {
    Ok(match name.trim().to_ascii_uppercase().as_str() {
        "VARCHAR" | "TEXT" | "STRING" => ColumnType::Utf8,
        "DOUBLE" | "FLOAT8" => ColumnType::Float64,
        "BIGINT" | "INT8" | "LONG" => ColumnType::Int64,
        "BOOLEAN" | "BOOL" => ColumnType::Boolean,
        "DATE" => ColumnType::Date32,
        "TIMESTAMP" | "DATETIME" => ColumnType::Timestamp,
        "TIME" => ColumnType::Time,
        "INTERVAL" => ColumnType::Duration,
        _ => {
            return Err(format!(
                "read_sheet: types: {name} is not a type read_sheet makes (VARCHAR, DOUBLE, BIGINT, BOOLEAN, DATE, TIMESTAMP, TIME, INTERVAL); cast it in the query"
            )
            .into());
        }
    })
}

/// DuckDB's rendering of a struct value, `{'key': value, 'it\'s': 'a, b'}`
/// (keys quoted with `\` escapes; a value quoted only where it needs it),
/// as (key, value) pairs; None when the text is not of that form.
fn parse_struct_text(text: &str) -> Option<Vec<(String, String)>> {
    /// A quoted text at the start of `rest` (after its quote), unescaped,
    /// and what follows it.
    fn quoted(rest: &str) -> Option<(String, &str)> {
        let mut out = String::new();
        let mut chars = rest.char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => out.push(chars.next()?.1),
                '\'' => return Some((out, &rest[at + 1..])),
                c => out.push(c),
            }
        }
        None
    }
    let mut rest = text.strip_prefix('{')?.strip_suffix('}')?;
    let mut pairs = Vec::new();
    while !rest.is_empty() {
        let (key, after) = quoted(rest.strip_prefix('\'')?)?;
        rest = after.strip_prefix(": ")?;
        let (value, after) = match rest.strip_prefix('\'') {
            Some(inner) => quoted(inner)?,
            None => {
                let end = rest.find(", '").unwrap_or(rest.len());
                (rest[..end].to_owned(), &rest[end..])
            }
        };
        pairs.push((key, value));
        rest = match after.strip_prefix(", ") {
            Some(next) => next,
            None if after.is_empty() => after,
            None => return None,
        };
    }
    Some(pairs)
}

/// The extension's entry point: registers `read_sheet`.
#[duckdb_entrypoint_c_api(ext_name = "sheetstream", min_duckdb_version = "v1.2.0")]
pub fn extension_entrypoint(connection: Connection) -> Result<(), BoxError> {
    connection.register_table_function::<ReadSheet>("read_sheet")?;
    Ok(())
}
