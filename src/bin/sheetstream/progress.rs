//! The progress bar: compressed bytes read out of the workbook file, shown
//! on stderr only when it is a terminal and `--quiet` is not given.
//!
//! The counter adds every byte any reader of the file consumes, and some
//! bytes are read more than once: the ZIP's end records and central
//! directory at open, the start of a sheet read for its dimension (`csv`)
//! or its header row (`--columns`), the sample of the typed commands'
//! first pass and a read again with wider types. So the count can pass
//! the file's size (`20.92 MiB/20.85 MiB` was seen); the bar shows it
//! clamped to the size ([`shown`]).

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

pub struct Progress {
    counter: Arc<AtomicU64>,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A progress bar over `total` compressed bytes, hidden when `quiet` or
    /// when stderr is not a terminal.
    pub fn new(total: u64, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress {
            counter: Arc::new(AtomicU64::new(0)),
            bar,
        }
    }

    /// The counter the workbook's file adds its reads to.
    pub fn counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.counter)
    }

    /// Runs `work`, updating the bar from the counter ten times a second.
    pub fn run<T>(&self, work: impl FnOnce() -> T) -> T {
        let Some(bar) = &self.bar else {
            return work();
        };
        let total = bar.length().unwrap_or(u64::MAX);
        let done = AtomicBool::new(false);
        thread::scope(|scope| {
            scope.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    bar.set_position(shown(self.counter.load(Ordering::Relaxed), total));
                    thread::sleep(Duration::from_millis(100));
                }
            });
            let result = work();
            done.store(true, Ordering::Relaxed);
            bar.finish_and_clear();
            result
        })
    }
}

/// The position the bar shows for `counted` bytes read of a file of
/// `total`: never past the total (bytes read twice are counted twice).
fn shown(counted: u64, total: u64) -> u64 {
    counted.min(total)
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn the_bar_never_passes_the_file_size() {
        let total = 21_862_400; // 20.85 MiB
        assert_eq!(shown(0, total), 0);
        assert_eq!(shown(total / 2, total), total / 2);
        assert_eq!(shown(total, total), total);
        // 20.92 MiB counted: the central directory and a sheet's start read twice.
        assert_eq!(shown(21_935_800, total), total);
        assert_eq!(shown(u64::MAX, 0), 0);
    }
}
