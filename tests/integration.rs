//! The integration tests, one test binary (as ripgrep does): each module is
//! a suite of its own (`cargo test --test integration hostile::` runs one),
//! but the binary is compiled and linked once instead of once per suite.
//!
//! `allocations` and `row_memory` stay binaries of their own: each installs
//! a counting global allocator, which would count every other test's
//! allocations too.

mod common;

mod arrow;
mod arrow_cli;
mod arrow_corpus;
mod arrow_many;
mod binary_mutations;
mod cli;
mod cli_inputs;
mod cli_vocabulary;
mod columns;
mod coming_from;
mod corpus;
#[cfg(feature = "encryption")]
mod encrypted_workbooks;
#[cfg(feature = "encryption")]
mod encryption;
mod errors;
mod formats;
mod fuzz_regressions;
mod golden;
mod hostile;
mod hostile_binary;
mod metadata;
mod namespaces;
mod no_silent_loss;
mod ods;
#[cfg(feature = "encryption")]
mod ods_encrypted;
mod parallel;
mod serde_rows;
mod shapes;
mod sheet;
mod tables;
mod xls;
mod xlsb;
