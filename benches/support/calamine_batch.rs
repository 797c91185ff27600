//! calamine into Arrow, as fastexcel reads a sheet: the whole sheet as a
//! dense range first (`worksheet_range`), then one Arrow array per column,
//! typed from its first 1,000 values (numbers Float64, booleans, dates
//! Timestamp(ms), anything else or a mix Utf8). Shared by the Arrow and
//! peers benches.

use std::sync::Arc;

use calamine::{Data, Range};
use sheetstream::arrow::arrow_array::builder::{
    BooleanBuilder, Float64Builder, StringBuilder, TimestampMillisecondBuilder,
};
use sheetstream::arrow::arrow_array::{ArrayRef, RecordBatch};
use sheetstream::arrow::arrow_schema::{DataType, Field, Schema, TimeUnit};

/// `range` as one record batch; its first row left out when
/// `skip_header` (the columns are named `column_N` either way).
pub fn range_to_batch(range: &Range<Data>, skip_header: bool) -> RecordBatch {
    let (height, width) = range.get_size();
    let first = usize::from(skip_header).min(height);
    let rows = height - first;
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for column in 0..width {
        let sample = (first..height.min(first + 1000)).filter_map(|row| range.get((row, column)));
        let mut kind = None;
        for value in sample {
            let this = match value {
                Data::Empty => continue,
                Data::Int(_) | Data::Float(_) => 0,
                Data::Bool(_) => 1,
                Data::DateTime(_) => 2,
                _ => 3,
            };
            kind = match kind {
                None => Some(this),
                Some(seen) if seen == this => Some(seen),
                Some(_) => Some(3),
            };
        }
        let cells = (first..height).map(|row| range.get((row, column)).unwrap_or(&Data::Empty));
        let (data_type, array): (DataType, ArrayRef) = match kind.unwrap_or(3) {
            0 => {
                let mut b = Float64Builder::with_capacity(rows);
                for value in cells {
                    match value {
                        Data::Int(n) => b.append_value(*n as f64),
                        Data::Float(n) => b.append_value(*n),
                        _ => b.append_null(),
                    }
                }
                (DataType::Float64, Arc::new(b.finish()))
            }
            1 => {
                let mut b = BooleanBuilder::with_capacity(rows);
                for value in cells {
                    match value {
                        Data::Bool(flag) => b.append_value(*flag),
                        _ => b.append_null(),
                    }
                }
                (DataType::Boolean, Arc::new(b.finish()))
            }
            2 => {
                let mut b = TimestampMillisecondBuilder::with_capacity(rows);
                for value in cells {
                    match value {
                        Data::DateTime(date) => b.append_value(
                            ((date.as_f64() - 25_569.0) * 86_400_000.0).round() as i64,
                        ),
                        _ => b.append_null(),
                    }
                }
                (
                    DataType::Timestamp(TimeUnit::Millisecond, None),
                    Arc::new(b.finish()),
                )
            }
            _ => {
                let mut b = StringBuilder::with_capacity(rows, rows * 8);
                for value in cells {
                    match value {
                        Data::Empty => b.append_null(),
                        Data::String(text) => b.append_value(text),
                        other => b.append_value(other.to_string()),
                    }
                }
                (DataType::Utf8, Arc::new(b.finish()))
            }
        };
        fields.push(Field::new(
            format!("column_{}", column + 1),
            data_type,
            true,
        ));
        columns.push(array);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch")
}
