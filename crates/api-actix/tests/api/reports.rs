//! The conversations report over HTTP on both backends: what the team's messages, answers and
//! closes add to it, by day, member and channel, as JSON and CSV, in the agent's time zone and
//! business hours; and every bad parameter named.

use actix_web::test::TestRequest;
use chrono::{TimeDelta, Utc};
use serde_json::{Value, json};

use crate::common::{Reply, TestApp, fields};
use crate::first_response::time;
use crate::rule_engine::{app_with_line, conversation_of, timeline, write};

backend_tests!(
    bad_report_parameters_are_named,
    a_report_counts_conversations_messages_and_median_times_by_day_member_and_channel,
    the_report_comes_as_csv_when_asked_for
);

const PATH: &str = "/v1/reports/conversations";

async fn bad_report_parameters_are_named(backend: &str) {
    let app = TestApp::new(backend).await;
    let cases = [
        ("?from=2026-02-30", vec!["from"]),
        ("?to=12/10/2026&group_by=week", vec!["to", "group_by"]),
        ("?from=2026-03-02&to=2026-03-01", vec!["from"]),
        ("?from=2025-01-01&to=2026-01-02", vec!["from"]),
        ("?group_by=", vec!["group_by"]),
    ];
    for (query, expected) in cases {
        assert_eq!(fields(&app.get(&format!("{PATH}{query}"), &app.a.secret).await), expected, "{query}");
    }
    let unknown = app.get(&format!("{PATH}?since=2026-01-01"), &app.a.secret).await;
    assert_eq!(fields(&unknown), ["since"]);
    let leap_year = app.get(&format!("{PATH}?from=2024-01-01&to=2024-12-31"), &app.a.secret).await;
    assert_eq!(leap_year.assert_status(200).data().as_array().unwrap().len(), 366, "366 days, every one a row");
    app.get(PATH, &app.a.publishable).await.assert_error(403, "FORBIDDEN");
}

/// Yesterday to tomorrow in UTC, whatever the time of day the test runs at.
fn around_today(app: &TestApp) -> String {
    let today = parley_domain::ports::Clock::now(&*app.clock).date_naive();
    format!("from={}&to={}", today - TimeDelta::days(1), today + TimeDelta::days(1))
}

/// Every row's counts added up: (opened, closed, in, out).
fn totals(rows: &Value) -> (i64, i64, i64, i64) {
    rows.as_array().unwrap().iter().fold((0, 0, 0, 0), |t, r| {
        let n = |k: &str| r[k].as_i64().unwrap_or_else(|| panic!("{k} of {r}"));
        (t.0 + n("opened"), t.1 + n("closed"), t.2 + n("messages_in"), t.3 + n("messages_out"))
    })
}

async fn reply(app: &TestApp, activity: &str, text: &str) -> Value {
    let r = app.post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, json!({"type": "text", "text": {"body": text}})).await;
    r.assert_status(201);
    r.data().clone()
}

/// The business seconds the API's own times give for a first response: from the contact's
/// opening message to the activity's `first_responded_at`.
async fn first_response_seconds(app: &TestApp, activity: &str) -> i64 {
    let a = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await.data().clone();
    let opened =
        timeline(app, activity).await.iter().filter(|m| m["direction"] == "inbound").map(|m| time(&m["created_at"])).min().unwrap();
    (time(&a["first_responded_at"]) - opened).num_seconds()
}

async fn a_report_counts_conversations_messages_and_median_times_by_day_member_and_channel(backend: &str) {
    let app = app_with_line(backend).await;
    let maria = app.post("/v1/members", &app.a.secret, json!({"email": "maria@shop.example", "name": "Maria"})).await;
    let maria = maria.assert_status(201).data()["id"].as_str().unwrap().to_string();
    let range = around_today(&app);
    let empty = app.get(&format!("{PATH}?{range}"), &app.a.secret).await;
    assert_eq!(empty.assert_status(200).body["group_by"], "day");
    assert_eq!(empty.body["timezone"], "UTC", "no business hours: days in UTC");
    let rows = empty.data().as_array().unwrap();
    assert_eq!(rows.len(), 3, "every day of the range, empty ones too");
    assert_eq!(
        rows[0],
        json!({"day": empty.body["from"], "opened": 0, "closed": 0, "messages_in": 0, "messages_out": 0,
        "median_first_response_seconds": null, "median_resolution_seconds": null})
    );

    // Ann writes twice; Maria, assigned, answers a minute later and closes two minutes later.
    write(&app, "5215550401", "wamid.rp-1", "Do you ship to Lisbon?").await;
    write(&app, "5215550401", "wamid.rp-2", "And to Porto?").await;
    let ann = conversation_of(&app, "5215550401").await["id"].as_str().unwrap().to_string();
    app.patch(&format!("/v1/activities/{ann}"), &app.a.secret, json!({"assigned_to": maria})).await.assert_status(200);
    app.clock.advance(TimeDelta::seconds(60));
    reply(&app, &ann, "We do, to both.").await;
    reply(&app, &ann, "Anything else?").await;
    app.post(&format!("/v1/activities/{ann}/notes"), &app.a.secret, json!({"text": "Asked about shipping"})).await.assert_status(201);
    app.clock.advance(TimeDelta::seconds(120));
    app.patch(&format!("/v1/activities/{ann}"), &app.a.secret, json!({"status": "closed"})).await.assert_status(200);
    // Bo writes; unassigned, answered three minutes later, left open.
    write(&app, "5215550402", "wamid.rp-3", "Is the red one back?").await;
    let bo = conversation_of(&app, "5215550402").await["id"].as_str().unwrap().to_string();
    app.clock.advance(TimeDelta::seconds(180));
    reply(&app, &bo, "Next week.").await;

    let (ann_first, bo_first) = (first_response_seconds(&app, &ann).await, first_response_seconds(&app, &bo).await);
    let by_day = app.get(&format!("{PATH}?{range}&group_by=day"), &app.a.secret).await;
    assert_eq!(totals(by_day.assert_status(200).data()), (2, 1, 3, 3), "two opened, one closed, three in, three out (a note is none)");

    let by_member = app.get(&format!("{PATH}?{range}&group_by=member"), &app.a.secret).await;
    let rows = by_member.assert_status(200).data().as_array().unwrap().clone();
    let keys: Vec<&Value> = rows.iter().map(|r| &r["member_id"]).collect();
    assert_eq!(keys, [&json!(maria), &Value::Null], "members by id, unassigned last");
    assert!(rows.iter().all(|r| r.get("day").is_none() && r.get("channel_type").is_none()), "only the group's own key");
    let (m, none) = (&rows[0], &rows[1]);
    assert_eq!(
        (m["opened"].as_i64(), m["closed"].as_i64(), m["messages_in"].as_i64(), m["messages_out"].as_i64()),
        (Some(0), Some(1), Some(0), Some(2))
    );
    assert_eq!(m["median_first_response_seconds"].as_i64(), Some(ann_first), "counted under who had it when it was answered");
    let resolution = m["median_resolution_seconds"].as_i64().unwrap();
    assert!((ann_first + 119..=ann_first + 121).contains(&resolution), "from the opening to the close: {resolution} vs {ann_first} + 120");
    assert_eq!((none["opened"].as_i64(), none["messages_in"].as_i64(), none["messages_out"].as_i64()), (Some(2), Some(3), Some(1)));
    assert_eq!(none["median_first_response_seconds"].as_i64(), Some(bo_first));
    assert_eq!(none["median_resolution_seconds"], Value::Null, "nothing unassigned was closed");

    let by_channel = app.get(&format!("{PATH}?{range}&group_by=channel"), &app.a.secret).await;
    let rows = by_channel.assert_status(200).data().as_array().unwrap().clone();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["channel_type"], "whatsapp");
    assert_eq!(rows[0]["median_first_response_seconds"].as_i64(), Some((ann_first + bo_first) / 2), "the median of two: their mean");

    // Times in business hours, as the hours are now: a week with no opening counts none; days
    // are cut in the shop's own zone.
    let closed = json!({"timezone": "Pacific/Kiritimati", "week": {}});
    app.put("/v1/settings/business_hours", &app.a.secret, closed).await.assert_status(200);
    let in_hours = app.get(&format!("{PATH}?{range}&group_by=channel"), &app.a.secret).await;
    assert_eq!(in_hours.assert_status(200).body["timezone"], "Pacific/Kiritimati");
    let row = &in_hours.data()[0];
    assert_eq!((row["median_first_response_seconds"].as_i64(), row["median_resolution_seconds"].as_i64()), (Some(0), Some(0)));
    let local_today = (Utc::now() + TimeDelta::hours(14)).date_naive();
    let today = app.get(&format!("{PATH}?from={local_today}&to={local_today}"), &app.a.secret).await;
    let local_rows = today.assert_status(200).data().as_array().unwrap().clone();
    assert_eq!(local_rows.len(), 1);
    assert_eq!(local_rows[0]["day"], json!(local_today.to_string()));

    let other = app.get(&format!("{PATH}?{range}"), &app.b.secret).await;
    assert_eq!(totals(other.assert_status(200).data()), (0, 0, 0, 0), "another agent's report");
}

/// `GET path` with the agent's secret key and `Accept: accept`.
async fn get_accepting(app: &TestApp, path: &str, accept: &str) -> Reply {
    let request = TestRequest::get().uri(path).insert_header(("X-API-Key", app.a.secret.as_str())).insert_header(("Accept", accept));
    app.call(request).await
}

async fn the_report_comes_as_csv_when_asked_for(backend: &str) {
    let app = app_with_line(backend).await;
    write(&app, "5215550501", "wamid.csv-1", "hello").await;
    let ann = conversation_of(&app, "5215550501").await["id"].as_str().unwrap().to_string();
    app.clock.advance(TimeDelta::seconds(30));
    reply(&app, &ann, "hi").await;
    let range = around_today(&app);
    let csv = get_accepting(&app, &format!("{PATH}?{range}&group_by=channel"), "text/csv").await;
    csv.assert_status(200);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    assert!(csv.header("content-disposition").unwrap().starts_with("attachment; filename=\"conversations-"));
    let seconds = first_response_seconds(&app, &ann).await;
    let text = csv.body.as_str().unwrap_or_else(|| panic!("CSV is text: {}", csv.body));
    assert_eq!(
        text,
        format!(
            "channel_type,opened,closed,messages_in,messages_out,median_first_response_seconds,median_resolution_seconds\nwhatsapp,1,0,1,1,{seconds},\n"
        )
    );
    let by_day = get_accepting(&app, &format!("{PATH}?{range}"), "application/json;q=0.5, text/csv").await;
    let lines: Vec<&str> = by_day.body.as_str().unwrap().lines().collect();
    assert_eq!(lines.len(), 4, "a header and three days: {lines:?}");
    assert!(lines[0].starts_with("day,opened,"));
    let json_first = get_accepting(&app, &format!("{PATH}?{range}"), "application/json, text/csv").await;
    assert!(json_first.body["data"].is_array(), "JSON when the caller ranks it first");
}
