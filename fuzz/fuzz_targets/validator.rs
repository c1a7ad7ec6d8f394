//! Arbitrary text through the offline YAML validator as each file kind and as detected:
//! it must never panic, and every finding must point inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zcp::ops::validate::{FileKind, setup_names, validate};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for kind in [None, Some(FileKind::ZeropsYml), Some(FileKind::ImportYml)] {
        let report = validate(text, kind, None);
        // YAML breaks lines at LF, CRLF and a lone CR alike.
        let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count() as u64 + 1;
        for finding in report
            .errors
            .iter()
            .chain(&report.warnings)
            .chain(&report.info)
        {
            assert!(
                finding.line as u64 <= lines,
                "line {} past the end: {finding:?}",
                finding.line
            );
        }
    }
    let _ = setup_names(text);
});
