//! `--columns`: the user's list resolved against a sheet's header row, and
//! the lookup of a row's cell by column for writing the selected columns
//! in the user's order.

use sheetstream::{Cell, ColumnSet, ColumnSpec, Row, Workbook};

use crate::format::{self, DateStyle};
use crate::rows::{Role, RowArgs};
use crate::{Failure, escape};

/// Help text shared by the commands that take `--columns`.
pub const HELP: &str = "Only these columns, in this order, read as a pushdown (cells of other \
columns are not resolved): a comma-separated list of column letters and letter ranges (`A:C,F`), \
1-based positions and ranges (`3`, `2-4`), and header names (matched exactly; quote a name that \
looks like letters or digits: `\"ID\"`)";

/// Parses `--columns`.
pub fn parse(spec: Option<&str>) -> Result<Option<ColumnSpec>, Failure> {
    spec.map(|spec| {
        ColumnSpec::parse(spec).map_err(|err| Failure::Usage(format!("--columns: {err}")))
    })
    .transpose()
}

/// The text of each cell of a sheet's header row, found as the rows
/// options say ([`RowArgs`]); none without a header row.
pub fn header_texts<R: std::io::Read + std::io::Seek>(
    workbook: &mut Workbook<R>,
    position: usize,
    rows_args: &RowArgs,
    dates: &DateStyle,
) -> Result<Vec<(u32, String)>, sheetstream::Error> {
    let mut roles = rows_args.roles();
    let mut rows = workbook.rows(position)?;
    while let Some(row) = rows.next_row()? {
        match roles.role(&row) {
            Role::Above => {}
            Role::Header => {
                return Ok(row
                    .cells()
                    .iter()
                    .map(|cell| {
                        let mut text = String::new();
                        format::text(&mut text, cell.value(), dates);
                        (cell.column(), text)
                    })
                    .collect());
            }
            Role::Data | Role::Past => break,
        }
    }
    Ok(Vec::new())
}

/// The output columns of one sheet: the list resolved, names against the
/// header row.
pub fn resolve<R: std::io::Read + std::io::Seek>(
    spec: &ColumnSpec,
    workbook: &mut Workbook<R>,
    position: usize,
    rows_args: &RowArgs,
    dates: &DateStyle,
) -> Result<Vec<u32>, Failure> {
    let header = if spec.needs_header() {
        header_texts(workbook, position, rows_args, dates)?
    } else {
        Vec::new()
    };
    let header: Vec<(u32, &str)> = header.iter().map(|(c, t)| (*c, t.as_str())).collect();
    spec.resolve(&header).map_err(|err| {
        Failure::Usage(format!(
            "sheet `{}`: --columns: {}",
            escape(workbook.sheets()[position].name()),
            escape(&err.to_string())
        ))
    })
}

/// The set a list of output columns reads.
pub fn set(order: &[u32]) -> ColumnSet {
    order.iter().copied().collect()
}

/// A row's cells by column, for the selected columns: filled per row and
/// cleared after, so that a lookup is one index whatever the order.
#[derive(Default)]
pub struct CellSlots {
    /// By column: 1 + the cell's index in the row, 0 for none.
    slots: Vec<u32>,
}

impl CellSlots {
    pub fn for_order(order: &[u32]) -> CellSlots {
        let width = order.iter().max().map_or(0, |&max| max as usize + 1);
        CellSlots {
            slots: vec![0; width],
        }
    }

    /// Calls `f` with each output column's cell (None where the row has none).
    pub fn each<'r, E>(
        &mut self,
        row: &Row<'r>,
        order: &[u32],
        mut f: impl FnMut(u32, Option<&Cell<'r>>) -> Result<(), E>,
    ) -> Result<(), E> {
        let cells = row.cells();
        for (index, cell) in cells.iter().enumerate() {
            if let Some(slot) = self.slots.get_mut(cell.column() as usize) {
                *slot = index as u32 + 1;
            }
        }
        let result = order.iter().try_for_each(|&column| {
            let cell = match self.slots.get(column as usize) {
                Some(&slot) if slot > 0 => cells.get(slot as usize - 1),
                _ => None,
            };
            f(column, cell)
        });
        for cell in cells {
            if let Some(slot) = self.slots.get_mut(cell.column() as usize) {
                *slot = 0;
            }
        }
        result
    }
}
