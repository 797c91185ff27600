//! The progress bar: compressed bytes read out of the workbook file, shown
//! on stderr only when it is a terminal and `--quiet` is not given.

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
        let done = AtomicBool::new(false);
        thread::scope(|scope| {
            scope.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    bar.set_position(self.counter.load(Ordering::Relaxed));
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
