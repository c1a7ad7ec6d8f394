//! RFC 3339 timestamps without a date library: formatting `SystemTime` as the API does
//! (`2026-04-22T10:15:03.123456Z`) and parsing what it sends (any fraction, `Z` or an
//! offset), so log filtering compares instants rather than strings.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Days since 1970-01-01 for a civil date (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Formats an instant in UTC with microseconds.
pub fn format_rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:06}Z",
        rest / 3600,
        (rest % 3600) / 60,
        rest % 60,
        since.subsec_micros()
    )
}

/// Days of `month` (1-12) in `year`, leap years included.
fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` (a space is accepted for the `T`).
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let text = text.trim();
    let bytes = text.as_bytes();
    if bytes.len() < 20 {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if bytes[4] != b'-' || bytes[7] != b'-' || !matches!(bytes[10], b'T' | b't' | b' ') {
        return None;
    }
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if bytes[13] != b':'
        || bytes[16] != b':'
        || !(1..=12).contains(&month)
        || !(1..=days_in_month(year, month)).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut rest = &text[19..];
    let mut nanos: u32 = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits: String = fraction.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            return None;
        }
        let padded: String = digits
            .chars()
            .chain(std::iter::repeat('0'))
            .take(9)
            .collect();
        nanos = padded.parse().ok()?;
        rest = &fraction[digits.len()..];
    }
    let offset_secs: i64 = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let hh: i64 = rest.get(1..3)?.parse().ok()?;
            let mm: i64 = rest.get(4..6)?.parse().ok()?;
            if rest.len() != 6 || rest.as_bytes()[3] != b':' || hh > 23 || mm > 59 {
                return None;
            }
            sign * (hh * 3600 + mm * 60)
        }
    };
    let secs = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - offset_secs;
    let secs = u64::try_from(secs).ok()?;
    Some(UNIX_EPOCH + Duration::new(secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_known_instants() {
        let t = UNIX_EPOCH + Duration::new(1_776_852_903, 123_456_000);
        let text = format_rfc3339(t);
        assert_eq!(text, "2026-04-22T10:15:03.123456Z");
        assert_eq!(parse_rfc3339(&text), Some(t));
        assert_eq!(format_rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000000Z");
        assert_eq!(
            parse_rfc3339("2000-02-29T00:00:00Z"),
            Some(UNIX_EPOCH + Duration::from_secs(951_782_400))
        );
    }

    #[test]
    fn offsets_and_fractions() {
        let a = parse_rfc3339("2026-04-22T12:15:03+02:00").unwrap();
        let b = parse_rfc3339("2026-04-22T10:15:03Z").unwrap();
        assert_eq!(a, b);
        let c = parse_rfc3339("2026-04-22T10:15:03.5Z").unwrap();
        assert_eq!(c.duration_since(b).unwrap(), Duration::from_millis(500));
        let d = parse_rfc3339("2026-04-22T10:15:03.123456789Z").unwrap();
        // Exact on Unix; Windows clocks count in 100 ns steps.
        let nanos = d.duration_since(b).unwrap().as_nanos();
        assert!((123_456_700..=123_456_789).contains(&nanos), "{nanos}");
        if cfg!(unix) {
            assert_eq!(nanos, 123_456_789);
        }
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "",
            "2026-04-22",
            "2026-13-01T00:00:00Z",
            "2026-04-22T10:15:03",
            "yesterday",
            "2026-04-22T10:15:03.Z",
            "2026-04-22T10:15:03+0200",
            "2026-02-30T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-04-22T10:15:03+25:00",
            "2026-04-22T10:15:03+02:60",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
        // The last days that do exist, a leap day included.
        for good in [
            "2028-02-29T00:00:00Z",
            "2000-02-29T00:00:00Z",
            "2026-04-30T23:59:59Z",
        ] {
            assert!(parse_rfc3339(good).is_some(), "{good}");
        }
        assert_eq!(parse_rfc3339("1900-02-29T00:00:00Z"), None);
    }
}
