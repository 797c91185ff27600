//! The metadata of an `.xlsb` workbook ([`crate::metadata`]).

use std::io::{Read, Seek};

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{DefinedName, SheetMetadata};
use crate::range::CellRange;
use crate::workbook::{SheetSelector, Workbook};

impl<R: Read + Seek> Workbook<R> {
    pub(crate) fn xlsb_defined_names(&mut self) -> Result<Vec<DefinedName>> {
        Err(Error::new(ErrorKind::Unsupported(
            "defined names of .xlsb".into(),
        )))
    }

    pub(crate) fn xlsb_sheet_metadata(
        &mut self,
        _sheet: impl SheetSelector,
    ) -> Result<SheetMetadata> {
        Err(Error::new(ErrorKind::Unsupported(
            "metadata of .xlsb".into(),
        )))
    }

    pub(crate) fn xlsb_sheet_dimension(
        &mut self,
        _sheet: impl SheetSelector,
    ) -> Result<Option<CellRange>> {
        Err(Error::new(ErrorKind::Unsupported(
            "metadata of .xlsb".into(),
        )))
    }

    pub(crate) fn xlsb_hidden_rows(&mut self, _sheet: impl SheetSelector) -> Result<Vec<u32>> {
        Err(Error::new(ErrorKind::Unsupported(
            "metadata of .xlsb".into(),
        )))
    }
}
