//! Reads a file whose path came from the model (`filePath` of zerops_validate and
//! zerops_import, zerops.yml of a deploy). The path is untrusted: it may name a directory,
//! a FIFO that would block a read forever, a device like /dev/zero that never ends, or a
//! huge file. Only a regular file of at most [`MAX_FILE_BYTES`] holding UTF-8 is read,
//! and the read itself is bounded, so a file that grows or is swapped after the check
//! still cannot exhaust memory. Knows nothing of MCP.

use std::fmt;
use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::path::Path;

use crate::platform::{ErrorCode, PlatformError};

/// The most a file named by the model may hold (10 MiB).
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// Why a model-supplied file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceFileError {
    /// Nothing at that path (or a path component is not a directory).
    Missing { path: String, reason: String },
    /// Something other than a regular file: a directory, FIFO, socket or device.
    NotRegular { path: String, kind: &'static str },
    /// Larger than [`MAX_FILE_BYTES`] (`size` is what was seen, possibly a lower bound).
    TooLarge { path: String, size: u64 },
    /// YAML passed inline (`content`) larger than [`MAX_FILE_BYTES`].
    ContentTooLarge { size: u64 },
    /// The bytes are not UTF-8 text.
    NotText { path: String },
    /// The name does not end in `.yml` or `.yaml` (see [`read_yaml`]).
    NotYamlName { path: String },
    /// Permission denied or another I/O failure.
    Unreadable { path: String, reason: String },
}

impl fmt::Display for SourceFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceFileError::Missing { path, reason } => write!(f, "Cannot read {path}: {reason}"),
            SourceFileError::NotRegular { path, kind } => {
                write!(f, "{path} is a {kind}, not a regular file")
            }
            SourceFileError::TooLarge { path, size } => write!(
                f,
                "{path} is larger than 10 MiB ({size} bytes or more); only files up to {MAX_FILE_BYTES} bytes are read"
            ),
            SourceFileError::ContentTooLarge { size } => write!(
                f,
                "content is larger than 10 MiB ({size} bytes); only up to {MAX_FILE_BYTES} bytes are read"
            ),
            SourceFileError::NotText { path } => write!(f, "{path} is not UTF-8 text"),
            SourceFileError::NotYamlName { path } => {
                write!(f, "{path} is not a .yml or .yaml file")
            }
            SourceFileError::Unreadable { path, reason } => {
                write!(f, "Cannot read {path}: {reason}")
            }
        }
    }
}

impl std::error::Error for SourceFileError {}

impl From<SourceFileError> for PlatformError {
    fn from(err: SourceFileError) -> PlatformError {
        let code = match err {
            SourceFileError::Missing { .. } | SourceFileError::Unreadable { .. } => {
                ErrorCode::FileNotFound
            }
            _ => ErrorCode::InvalidParameter,
        };
        let suggestion = match err {
            SourceFileError::Missing { .. } => {
                let cwd = std::env::current_dir()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                format!(
                    "Relative paths are resolved against the MCP server's working directory ({cwd}); pass an absolute path, or the YAML itself as content."
                )
            }
            SourceFileError::NotRegular { .. } => {
                "Pass the path of a regular YAML file (not a directory, pipe or device), or the YAML itself as content.".to_owned()
            }
            SourceFileError::TooLarge { .. } => {
                "Zerops YAML files are small; check the path, or pass the relevant part as content.".to_owned()
            }
            SourceFileError::ContentTooLarge { .. } => {
                "Zerops YAML files are small; pass only the zerops.yml or import.yml itself as content.".to_owned()
            }
            SourceFileError::NotText { .. } => {
                "Pass a UTF-8 text YAML file, or the YAML itself as content.".to_owned()
            }
            SourceFileError::NotYamlName { .. } => {
                "Only YAML files are read (zerops.yml, import.yml, ...): pass such a path, or the YAML itself as content.".to_owned()
            }
            SourceFileError::Unreadable { .. } => {
                "Check the file's permissions, or pass the YAML itself as content.".to_owned()
            }
        };
        PlatformError::new(code, err.to_string()).with_suggestion(suggestion)
    }
}

/// [`read_text`] for a path the model chose freely (`filePath`): only a file named
/// `*.yml` or `*.yaml` is read. Findings quote what they find, so without this a model
/// steered by a prompt injection could read `~/.ssh/id_ed25519` or a `.env` file through
/// the validator's error messages.
pub fn read_yaml(path: &Path) -> Result<String, SourceFileError> {
    let is_yaml = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yml") || e.eq_ignore_ascii_case("yaml"));
    if !is_yaml {
        return Err(SourceFileError::NotYamlName {
            path: path.display().to_string(),
        });
    }
    read_text(path)
}

/// Accepts YAML given inline if it is within the same [`MAX_FILE_BYTES`] as a file: the
/// validator's work grows with the input, and inline text had no bound but the protocol's
/// line length.
pub fn check_content(text: &str) -> Result<(), SourceFileError> {
    let size = text.len() as u64;
    if size > MAX_FILE_BYTES {
        return Err(SourceFileError::ContentTooLarge { size });
    }
    Ok(())
}

/// Reads `path` as UTF-8 text if it is a regular file of at most [`MAX_FILE_BYTES`].
pub fn read_text(path: &Path) -> Result<String, SourceFileError> {
    let shown = path.display().to_string();
    // Look before opening: opening a FIFO for reading blocks until a writer appears.
    let metadata = std::fs::metadata(path).map_err(|err| classify(&shown, &err))?;
    check(&shown, &metadata)?;
    let file = open(path).map_err(|err| classify(&shown, &err))?;
    // Check the opened file again: the path may have been swapped since the first look.
    let metadata = file.metadata().map_err(|err| classify(&shown, &err))?;
    check(&shown, &metadata)?;
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| classify(&shown, &err))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(SourceFileError::TooLarge {
            path: shown,
            size: bytes.len() as u64,
        });
    }
    String::from_utf8(bytes).map_err(|_| SourceFileError::NotText { path: shown })
}

/// Opens without blocking on special files (a FIFO swapped in after the first look).
fn open(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(nix::libc::O_NONBLOCK);
    }
    options.open(path)
}

fn check(shown: &str, metadata: &Metadata) -> Result<(), SourceFileError> {
    if !metadata.is_file() {
        return Err(SourceFileError::NotRegular {
            path: shown.to_owned(),
            kind: kind_of(metadata),
        });
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(SourceFileError::TooLarge {
            path: shown.to_owned(),
            size: metadata.len(),
        });
    }
    Ok(())
}

fn kind_of(metadata: &Metadata) -> &'static str {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        return "directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "socket";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "device";
        }
    }
    "special file"
}

fn classify(shown: &str, err: &std::io::Error) -> SourceFileError {
    match err.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
            SourceFileError::Missing {
                path: shown.to_owned(),
                reason: err.to_string(),
            }
        }
        _ => SourceFileError::Unreadable {
            path: shown.to_owned(),
            reason: err.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn only_yaml_names_are_read_for_the_model() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["id_ed25519", ".env", "secrets.txt", "zerops.yml.bak", "yml"] {
            let path = dir.path().join(name);
            std::fs::write(&path, "zerops: []\n").unwrap();
            assert_eq!(
                read_yaml(&path).unwrap_err(),
                SourceFileError::NotYamlName {
                    path: path.display().to_string()
                },
                "{name}"
            );
        }
        for name in ["zerops.yml", "import.YAML", "a.b.yaml"] {
            let path = dir.path().join(name);
            std::fs::write(&path, "zerops: []\n").unwrap();
            assert_eq!(read_yaml(&path).unwrap(), "zerops: []\n", "{name}");
        }
        let err = PlatformError::from(read_yaml(Path::new("/etc/passwd")).unwrap_err());
        assert_eq!(err.code, ErrorCode::InvalidParameter);
        assert!(err.suggestion.contains("content"), "{err:?}");
    }

    #[test]
    fn reads_a_small_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("zerops.yml");
        std::fs::write(&path, "zerops:\n  - setup: api\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "zerops:\n  - setup: api\n");
    }

    #[test]
    fn a_missing_file_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_text(&dir.path().join("nope.yml")).unwrap_err();
        assert!(matches!(err, SourceFileError::Missing { .. }), "{err:?}");
        assert_eq!(PlatformError::from(err).code, ErrorCode::FileNotFound);
    }

    #[test]
    fn a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_text(dir.path()).unwrap_err();
        assert_eq!(
            err,
            SourceFileError::NotRegular {
                path: dir.path().display().to_string(),
                kind: "directory"
            }
        );
        assert_eq!(PlatformError::from(err).code, ErrorCode::InvalidParameter);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        let err = read_text(&path).unwrap_err();
        assert!(
            matches!(
                err,
                SourceFileError::NotRegular {
                    kind: "FIFO (named pipe)",
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn dev_zero_is_refused() {
        let err = read_text(Path::new("/dev/zero")).unwrap_err();
        assert!(
            matches!(err, SourceFileError::NotRegular { kind: "device", .. }),
            "{err:?}"
        );
    }

    #[test]
    fn a_file_over_the_limit_is_refused_and_one_at_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("at.yml");
        let over = dir.path().join("over.yml");
        let at_file = File::create(&at).unwrap();
        at_file.set_len(MAX_FILE_BYTES).unwrap();
        let mut over_file = File::create(&over).unwrap();
        over_file.set_len(MAX_FILE_BYTES).unwrap();
        over_file
            .write_all(b"#")
            .and_then(|()| over_file.set_len(MAX_FILE_BYTES + 1))
            .unwrap();
        assert_eq!(read_text(&at).unwrap().len() as u64, MAX_FILE_BYTES);
        let err = read_text(&over).unwrap_err();
        assert_eq!(
            err,
            SourceFileError::TooLarge {
                path: over.display().to_string(),
                size: MAX_FILE_BYTES + 1
            }
        );
        assert!(err.to_string().contains("larger than 10 MiB"));
    }

    #[test]
    fn binary_content_is_not_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bin.yml");
        std::fs::write(&path, [0xff, 0xfe, 0x00, b'a']).unwrap();
        assert!(matches!(
            read_text(&path).unwrap_err(),
            SourceFileError::NotText { .. }
        ));
    }
}
