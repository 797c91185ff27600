//! The passwords every command opens encrypted workbooks with:
//! `--password-file FILE` (repeatable), the environment variable
//! `SHEETSTREAM_PASSWORD`, and `--password` (warned about: a command line
//! is visible to other users and kept in shell history). Read once at
//! start; every opening goes through [`open_options`].

use std::path::PathBuf;
use std::sync::OnceLock;

use clap::Args;
use sheetstream::OpenOptions;

use crate::{Failure, escape, warn_once};

/// The environment variable holding a password.
pub const PASSWORD_VARIABLE: &str = "SHEETSTREAM_PASSWORD";

/// The options for encrypted workbooks, taken by every command.
#[derive(Args, Clone, Default)]
pub struct PasswordArgs {
    /// A file holding the password of encrypted workbooks: its whole
    /// content, UTF-8 (one trailing newline dropped). Repeatable: each is
    /// tried in turn, after Excel's default password (VelvetSweatshop),
    /// which is always tried first (an .ods has no default password).
    #[arg(long, global = true, value_name = "FILE")]
    password_file: Vec<PathBuf>,
    /// A password of encrypted workbooks, given on the command line: other
    /// users can read it in the process list, and it stays in the shell's
    /// history. Prefer --password-file or SHEETSTREAM_PASSWORD.
    /// Repeatable.
    #[arg(long, global = true, value_name = "PASSWORD")]
    password: Vec<String>,
    /// Check an encrypted workbook's integrity (the HMAC of Agile
    /// encryption) when it is opened, whatever is read of it. A command
    /// that reads every sheet (cells, count, csv --all, ...) checks it
    /// anyway once the last sheet is read.
    #[arg(long, global = true)]
    verify_integrity: bool,
}

/// What [`PasswordArgs::install`] read.
struct Installed {
    passwords: Vec<String>,
    verify_integrity: bool,
}

static INSTALLED: OnceLock<Installed> = OnceLock::new();

impl PasswordArgs {
    /// Reads the password files and the variable, for [`open_options`].
    ///
    /// # Errors
    ///
    /// A password file that cannot be read or is not UTF-8 (a usage error
    /// naming it).
    pub fn install(&self) -> Result<(), Failure> {
        let mut passwords = Vec::new();
        for path in &self.password_file {
            let bytes = std::fs::read(path).map_err(|err| {
                Failure::Usage(format!(
                    "--password-file {}: cannot read it: {err}",
                    escape(&path.to_string_lossy())
                ))
            })?;
            let text = String::from_utf8(bytes).map_err(|_| {
                Failure::Usage(format!(
                    "--password-file {}: the password is not UTF-8 text",
                    escape(&path.to_string_lossy())
                ))
            })?;
            passwords.push(without_newline(text));
        }
        if !self.password.is_empty() {
            warn_once(
                "a password given with --password can be read by other users in the process \
                 list and stays in the shell's history; prefer --password-file or \
                 SHEETSTREAM_PASSWORD"
                    .into(),
            );
            passwords.extend(self.password.iter().cloned());
        }
        match std::env::var(PASSWORD_VARIABLE) {
            Ok(password) => passwords.push(password),
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(Failure::Usage(format!(
                    "{PASSWORD_VARIABLE}: the password is not UTF-8 text"
                )));
            }
            Err(std::env::VarError::NotPresent) => {}
        }
        let _ = INSTALLED.set(Installed {
            passwords,
            verify_integrity: self.verify_integrity,
        });
        Ok(())
    }
}

/// The text of a password file without one trailing LF or CR LF.
fn without_newline(mut text: String) -> String {
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    text
}

/// The options every workbook is opened with: the passwords given.
pub fn open_options() -> OpenOptions {
    match INSTALLED.get() {
        Some(installed) => OpenOptions::new()
            .passwords(installed.passwords.iter().cloned())
            .verify_integrity(installed.verify_integrity),
        None => OpenOptions::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::without_newline;

    #[test]
    fn one_trailing_newline_is_dropped() {
        for (text, expected) in [
            ("pw", "pw"),
            ("pw\n", "pw"),
            ("pw\r\n", "pw"),
            ("pw\n\n", "pw\n"),
            ("pw\r", "pw\r"),
            (" pw ", " pw "),
        ] {
            assert_eq!(without_newline(text.into()), expected, "{text:?}");
        }
    }
}
