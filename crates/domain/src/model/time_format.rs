//! Times as the API writes them: RFC 3339 in UTC to the millisecond, `2026-11-21T10:00:00.000Z`.

use chrono::{Datelike, Timelike};

use super::Timestamp;

/// `t` as RFC 3339, milliseconds, `Z`. Written digit by digit: through chrono's general
/// formatter this was a tenth of a catalog page's time (two times per product).
pub fn format_timestamp(t: Timestamp) -> String {
    let mut out = String::with_capacity(24);
    push_timestamp(&mut out, t);
    out
}

/// Appends `t` as [`format_timestamp`] writes it.
pub fn push_timestamp(out: &mut String, t: Timestamp) {
    let (date, time) = (t.date_naive(), t.time());
    let year = date.year();
    if !(0..=9999).contains(&year) {
        // Outside four digits RFC 3339 has no form; chrono writes its extended one.
        out.push_str(&t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        return;
    }
    let mut text = *b"0000-00-00T00:00:00.000Z";
    let mut put = |end: usize, width: usize, mut value: u32| {
        for slot in text[end - width..end].iter_mut().rev() {
            *slot = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    let nanos = time.nanosecond();
    put(4, 4, year as u32);
    put(7, 2, date.month());
    put(10, 2, date.day());
    put(13, 2, time.hour());
    put(16, 2, time.minute());
    // A leap second shows as second 60, as chrono writes it.
    put(19, 2, time.second() + nanos / 1_000_000_000);
    put(23, 3, nanos % 1_000_000_000 / 1_000_000);
    out.push_str(std::str::from_utf8(&text).expect("ASCII digits"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};
    use proptest::prelude::*;

    fn chrono_form(t: Timestamp) -> String {
        t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    #[test]
    fn known_times() {
        let t = DateTime::<Utc>::from_timestamp_millis(1_795_000_000_123).unwrap();
        assert_eq!(format_timestamp(t), "2026-11-18T11:06:40.123Z");
        assert_eq!(format_timestamp(DateTime::<Utc>::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let far = DateTime::<Utc>::from_timestamp_millis(-62_167_219_200_000).unwrap();
        assert_eq!(format_timestamp(far), "0000-01-01T00:00:00.000Z");
    }

    proptest! {
        #[test]
        fn writes_what_chrono_writes(ms in -80_000_000_000_000i64..400_000_000_000_000, nanos in 0u32..1_000_000) {
            let t = DateTime::<Utc>::from_timestamp_millis(ms).unwrap() + chrono::Duration::nanoseconds(i64::from(nanos));
            prop_assert_eq!(format_timestamp(t), chrono_form(t));
        }
    }
}
