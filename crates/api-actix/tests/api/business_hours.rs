//! `/v1/settings/business_hours` over HTTP, on both backends: none until set, replaced whole,
//! every fault named with nothing changed, and each agent's own.

use crate::common::{TestApp, fields};
use serde_json::{Value, json};

backend_tests!(business_hours_are_set_whole_read_back_and_each_agents_own, bad_business_hours_are_refused_by_field_and_change_nothing);

const PATH: &str = "/v1/settings/business_hours";

fn lisbon() -> Value {
    json!({
        "timezone": "Europe/Lisbon",
        "week": {"mon": [["14:00", "18:00"], ["09:00", "13:00"]], "fri": [["09:00", "24:00"]]},
        "closed_dates": ["2026-12-25", "2026-12-24"],
        "away_message": "We are closed: we answer from 9:00, Lisbon time."
    })
}

async fn business_hours_are_set_whole_read_back_and_each_agents_own(backend: &str) {
    let app = TestApp::new(backend).await;
    let none = app.get(PATH, &app.a.secret).await;
    none.assert_status(200);
    assert_eq!(none.body, json!({"data": null}), "none set: always open");

    let set = app.put(PATH, &app.a.secret, lisbon()).await;
    set.assert_status(200);
    let expected = json!({
        "timezone": "Europe/Lisbon",
        "week": {"mon": [["09:00", "13:00"], ["14:00", "18:00"]], "tue": [], "wed": [], "thu": [], "fri": [["09:00", "24:00"]], "sat": [], "sun": []},
        "closed_dates": ["2026-12-24", "2026-12-25"],
        "away_message": "We are closed: we answer from 9:00, Lisbon time."
    });
    assert_eq!(set.data(), &expected, "every day listed, periods and dates in order");
    assert_eq!(app.get(PATH, &app.a.secret).await.data(), &expected);
    assert_eq!(app.get(PATH, &app.b.secret).await.body, json!({"data": null}), "another agent's hours are not its own");

    // Replaced whole: what is left out is empty.
    let bare = app.put(PATH, &app.a.secret, json!({"timezone": "America/Sao_Paulo", "week": {"sat": [["10:00", "14:00"]]}})).await;
    bare.assert_status(200);
    assert_eq!(bare.data()["closed_dates"], json!([]));
    assert_eq!(bare.data()["away_message"], Value::Null);
    assert_eq!(bare.data()["week"]["mon"], json!([]));
    assert_eq!(app.get(PATH, &app.a.secret).await.data()["timezone"], "America/Sao_Paulo");
}

async fn bad_business_hours_are_refused_by_field_and_change_nothing(backend: &str) {
    let app = TestApp::new(backend).await;
    app.put(PATH, &app.a.secret, lisbon()).await.assert_status(200);
    let before = app.get(PATH, &app.a.secret).await.body;

    let bad = json!({
        "timezone": "Europe/Atlantis",
        "week": {"mon": [["09:00", "13:00"], ["12:00", "18:00"]], "tue": [["18:00", "09:00"]], "wed": [["9am", "5pm"]], "thu": [["10:00"]]},
        "closed_dates": ["2026-12-25", "2026-02-30", "next friday"],
        "away_message": ""
    });
    let r = app.put(PATH, &app.a.secret, bad).await;
    assert_eq!(
        fields(&r),
        ["timezone", "week.mon[1]", "week.thu[0]", "week.tue[0]", "week.wed[0]", "closed_dates[1]", "closed_dates[2]", "away_message"],
        "{}",
        r.body
    );
    let r = app.put(PATH, &app.a.secret, json!({"timezone": "UTC", "week": {"fun": [["09:00", "10:00"]]}})).await;
    assert!(fields(&r).iter().any(|f| f.contains("fun")), "an unknown day is named: {}", r.body);
    let r = app.put(PATH, &app.a.secret, json!({"timezone": "UTC", "holidays": []})).await;
    assert!(fields(&r).iter().any(|f| f == "holidays"), "an unknown field is named: {}", r.body);
    assert_eq!(fields(&app.put(PATH, &app.a.secret, json!({"week": {}})).await), ["timezone"], "the time zone is required");
    assert_eq!(app.get(PATH, &app.a.secret).await.body, before, "nothing changed");
    app.get(PATH, &app.a.publishable).await.assert_error(403, "FORBIDDEN");
}
