//! Business-hours arithmetic: checked input, and counting working time across time zones,
//! daylight-saving changes and closed dates.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use parley_domain::model::{BusinessHours, BusinessHoursInput};
use proptest::prelude::*;

fn hours(timezone: &str, week: &[(&str, &[(&str, &str)])], closed: &[&str]) -> BusinessHours {
    BusinessHours::new(input(timezone, week, closed)).unwrap_or_else(|e| panic!("{e:?}"))
}

fn input(timezone: &str, week: &[(&str, &[(&str, &str)])], closed: &[&str]) -> BusinessHoursInput {
    let week: BTreeMap<String, Vec<Vec<String>>> = week
        .iter()
        .map(|(day, periods)| (day.to_string(), periods.iter().map(|(a, b)| vec![a.to_string(), b.to_string()]).collect()))
        .collect();
    BusinessHoursInput {
        timezone: Some(timezone.into()),
        week: Some(week),
        closed_dates: Some(closed.iter().map(|d| d.to_string()).collect()),
        away_message: Some("We are closed; we answer from 9:00.".into()),
    }
}

fn utc(raw: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(raw).unwrap().with_timezone(&Utc)
}

const EVERY_DAY: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

fn all_day(timezone: &str) -> BusinessHours {
    let week: Vec<(&str, &[(&str, &str)])> = EVERY_DAY.iter().map(|d| (*d, &[("00:00", "24:00")][..])).collect();
    hours(timezone, &week, &[])
}

#[test]
fn each_fault_is_named() {
    let mut bad = input(
        "Mars/Olympus",
        &[("mon", &[("09:00", "13:00"), ("12:00", "18:00")]), ("fun", &[]), ("tue", &[("18:00", "09:00")])],
        &["2026-12-25", "2026-02-30", "tomorrow"],
    );
    bad.week.as_mut().unwrap().insert("wed".into(), vec![vec!["9:00".into(), "17:00".into()], vec!["10:00".into()]]);
    bad.away_message = Some("  ".into());
    let errors = BusinessHours::new(bad).unwrap_err();
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "timezone",
            "week.fun",
            "week.mon[1]",
            "week.tue[0]",
            "week.wed[0]",
            "week.wed[1]",
            "closed_dates[1]",
            "closed_dates[2]",
            "away_message"
        ],
        "{errors:?}"
    );
    assert!(errors[2].issue.contains("overlaps week.mon[0]"), "{}", errors[2].issue);
    assert!(BusinessHours::new(BusinessHoursInput::default()).unwrap_err()[0].issue.contains("required"));
}

#[test]
fn a_week_is_counted_in_the_shops_own_time() {
    // Lisbon in winter is UTC+0, in summer UTC+1.
    let shop = hours("Europe/Lisbon", &[("mon", &[("09:00", "13:00"), ("14:00", "18:00")]), ("sat", &[("10:00", "14:00")])], &[]);
    assert!(shop.is_open(utc("2026-12-07T09:00:00Z")), "a Monday, 9:00 in Lisbon");
    assert!(!shop.is_open(utc("2026-12-07T13:30:00Z")), "lunch");
    assert!(!shop.is_open(utc("2026-12-07T18:00:00Z")), "the end is not open");
    assert!(shop.is_open(utc("2026-07-06T08:00:00Z")), "a summer Monday, 9:00 in Lisbon is 8:00 UTC");
    assert!(!shop.is_open(utc("2026-07-06T17:30:00Z")), "18:30 in Lisbon");
    assert!(!shop.is_open(utc("2026-12-08T10:00:00Z")), "Tuesday: closed");
    // Monday 9:00 to the next Monday 9:00: 8 hours on Monday, 4 on Saturday.
    assert_eq!(shop.open_seconds_between(utc("2026-12-07T09:00:00Z"), utc("2026-12-14T09:00:00Z")), 12 * 3600);
    // Due 2 working hours after Monday 12:30: 30 minutes before lunch, 90 after.
    assert_eq!(shop.add_open_seconds(utc("2026-12-07T12:30:00Z"), 2 * 3600), Some(utc("2026-12-07T15:30:00Z")));
    // Due 5 hours after Monday 17:00: one hour then, four on Saturday.
    assert_eq!(shop.add_open_seconds(utc("2026-12-07T17:00:00Z"), 5 * 3600), Some(utc("2026-12-12T14:00:00Z")));
}

#[test]
fn closed_dates_close_the_whole_local_day() {
    let shop = hours("America/New_York", &[("fri", &[("09:00", "17:00")])], &["2026-12-25"]);
    assert!(!shop.is_open(utc("2026-12-25T15:00:00Z")), "Christmas, 10:00 in New York");
    assert!(shop.is_open(utc("2027-01-01T15:00:00Z")), "the next Friday");
    assert_eq!(shop.open_seconds_between(utc("2026-12-24T00:00:00Z"), utc("2026-12-26T00:00:00Z")), 0);
    let never = hours("UTC", &[], &[]);
    assert_eq!(never.add_open_seconds(utc("2026-12-24T00:00:00Z"), 60), None, "never open: never due");
}

#[test]
fn daylight_saving_days_count_the_hours_the_clocks_show() {
    // Lisbon: 2026-03-29 01:00 → 02:00 (a 23-hour day), 2026-10-25 02:00 → 01:00 (25 hours).
    let shop = hours("Europe/Lisbon", &[("sun", &[("00:00", "03:00")])], &[]);
    assert_eq!(shop.open_seconds_between(utc("2026-03-28T12:00:00Z"), utc("2026-03-29T12:00:00Z")), 2 * 3600);
    assert_eq!(shop.open_seconds_between(utc("2026-10-24T12:00:00Z"), utc("2026-10-25T12:00:00Z")), 4 * 3600);
    // A period that starts inside the skipped hour starts when the clocks jump.
    let skipped = hours("Europe/Lisbon", &[("sun", &[("01:30", "04:00")])], &[]);
    assert_eq!(skipped.open_seconds_between(utc("2026-03-29T00:00:00Z"), utc("2026-03-29T06:00:00Z")), 2 * 3600);
    assert!(skipped.is_open(utc("2026-03-29T01:00:00Z")), "02:00 local, just after the jump");
}

/// Instants from 2025 to 2028, a minute apart at most: across several daylight-saving changes.
fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    (1_735_689_600i64..1_830_297_600).prop_map(|s| Utc.timestamp_opt(s - s % 60, 0).unwrap())
}

fn zone() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["UTC", "Europe/Lisbon", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/Santiago"])
}

/// A week of up to two periods a day, on whole quarter hours.
fn schedule() -> impl Strategy<Value = BusinessHours> {
    let day = prop::collection::vec((0u32..96, 1u32..40), 0..=2);
    (zone(), prop::collection::vec(day, 7), prop::collection::vec(0u32..40, 0..3)).prop_filter_map(
        "periods that do not overlap",
        |(zone, days, closed)| {
            let mut week = BTreeMap::new();
            for (name, periods) in EVERY_DAY.iter().zip(days) {
                let mut pairs = Vec::new();
                for (start, length) in periods {
                    let end = (start + length).min(96);
                    pairs.push(vec![format!("{:02}:{:02}", start / 4, start % 4 * 15), format!("{:02}:{:02}", end / 4, end % 4 * 15)]);
                }
                week.insert(name.to_string(), pairs);
            }
            let closed_dates = closed
                .iter()
                .map(|d| (chrono::NaiveDate::from_ymd_opt(2026, 3, 1).unwrap() + chrono::Days::new(u64::from(*d))).to_string())
                .collect();
            BusinessHours::new(BusinessHoursInput {
                timezone: Some(zone.into()),
                week: Some(week),
                closed_dates: Some(closed_dates),
                away_message: None,
            })
            .ok()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn working_time_adds_up(hours in schedule(), a in instant(), gaps in (0i64..10 * 86_400, 0i64..10 * 86_400)) {
        let (b, c) = (a + TimeDelta::seconds(gaps.0), a + TimeDelta::seconds(gaps.0 + gaps.1));
        let (ab, bc, ac) = (hours.open_seconds_between(a, b), hours.open_seconds_between(b, c), hours.open_seconds_between(a, c));
        prop_assert_eq!(ab + bc, ac);
        prop_assert!(ac >= 0 && ac <= (c - a).num_seconds());
    }

    #[test]
    fn a_due_time_is_exactly_that_much_working_time_later(hours in schedule(), from in instant(), seconds in 0i64..3 * 86_400) {
        if let Some(due) = hours.add_open_seconds(from, seconds) {
            prop_assert_eq!(hours.open_seconds_between(from, due), seconds);
            // …and not a moment earlier: the last second before it is still short of the target.
            if seconds > 0 {
                prop_assert!(hours.open_seconds_between(from, due - TimeDelta::seconds(1)) < seconds);
            }
        }
    }

    #[test]
    fn open_means_a_second_of_working_time(hours in schedule(), at in instant()) {
        prop_assert_eq!(hours.is_open(at), hours.open_seconds_between(at, at + TimeDelta::seconds(1)) == 1);
    }

    #[test]
    fn open_all_day_every_day_is_open_all_the_time(zone in zone(), a in instant(), length in 0i64..40 * 86_400) {
        let always = all_day(zone);
        prop_assert_eq!(always.open_seconds_between(a, a + TimeDelta::seconds(length)), length);
        prop_assert!(always.is_open(a));
    }

    #[test]
    fn open_time_kept_as_running_totals_agrees_with_counting_each_stretch(
        hours in schedule(), a in instant(), gaps in (0i64..20 * 86_400, 0i64..20 * 86_400), ms in 0i64..60_000,
    ) {
        let (b, c) = (a + TimeDelta::seconds(gaps.0) + TimeDelta::milliseconds(ms), a + TimeDelta::seconds(gaps.0 + gaps.1));
        let open = hours.open_time(a, c + TimeDelta::seconds(1));
        prop_assert_eq!(open.seconds_between(a, c), hours.open_seconds_between(a, c));
        prop_assert_eq!(open.seconds_between(a, b), hours.open_seconds_between(a, b));
        prop_assert_eq!(open.seconds_between(b, c), hours.open_seconds_between(b, c));
    }

    #[test]
    fn an_instant_falls_in_the_local_day_it_shows(hours in schedule(), at in instant()) {
        let day = hours.local_date(at);
        prop_assert!(hours.start_of_day(day) <= at);
        prop_assert!(at < hours.start_of_day(day.succ_opt().unwrap()));
    }
}

#[test]
fn hours_read_back_from_their_stored_document() {
    let shop =
        hours("Asia/Kolkata", &[("mon", &[("14:00", "24:00"), ("09:00", "13:00")]), ("sun", &[("10:00", "10:15")])], &["2027-01-26"]);
    let text = shop.to_document();
    assert_eq!(BusinessHours::from_document(&text).unwrap(), shop);
    assert_eq!(BusinessHours::new(shop.to_input()).unwrap(), shop, "the API's shape reads back the same");
    assert!(
        BusinessHours::from_document(r#"{"timezone":"Nowhere/Else","week":{},"closed_dates":[],"away_message":null}"#)
            .unwrap_err()
            .contains("timezone")
    );
}
