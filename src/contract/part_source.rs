//! [`PartSource`]: where a streamed part's inflated bytes come from (a
//! reader on this thread, or the pipe's inflate thread), and the window a
//! format's reader scans them through.

use std::io::{self, Read};

use crate::archive::pipe::Pipe;
use crate::chunk::ChunkBuffer;
use crate::error::Result;
use crate::limits::Limits;

/// Where a sheet's inflated bytes come from.
pub(crate) enum PartSource<'a> {
    /// Read into the window, chunk by chunk; boxed so the reader's type does
    /// not depend on where the bytes come from (one dynamic call per chunk,
    /// not per cell).
    Reader(Box<dyn Read + 'a>),
    /// Whole buffers from an inflate thread, scanned where they lie.
    Pipe(Pipe<'a>),
}

impl PartSource<'_> {
    /// The window a reader of this source scans: its own buffer for a
    /// reader, the pipe's buffers taken where they lie for a pipe.
    pub(crate) fn chunk_buffer(&self, limits: &Limits) -> ChunkBuffer {
        match self {
            PartSource::Reader(_) => ChunkBuffer::new(limits.max_row_bytes),
            PartSource::Pipe(_) => ChunkBuffer::without_buffer(limits.max_row_bytes),
        }
    }

    /// More bytes into `buffer` (see [`ChunkBuffer::fill_for_rescan`]).
    pub(crate) fn fill_for_rescan(&mut self, buffer: &mut ChunkBuffer) -> Result<()> {
        match self {
            PartSource::Reader(reader) => buffer.fill_for_rescan(reader),
            PartSource::Pipe(pipe) => pipe.fill_for_rescan(buffer),
        }
    }

    /// Reads the rest, so that the archive's CRC check runs.
    pub(crate) fn drain(&mut self) -> Result<()> {
        match self {
            PartSource::Reader(reader) => {
                io::copy(reader, &mut io::sink())?;
                Ok(())
            }
            PartSource::Pipe(pipe) => Ok(pipe.drain()?),
        }
    }
}
