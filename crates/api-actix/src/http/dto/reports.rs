//! The conversations report as the API shows it: JSON rows, or the same columns as CSV.

use parley_domain::model::{GroupBy, GroupKey, Report, ReportRow};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// What a report is asked for.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReportParams {
    /// The first day, `YYYY-MM-DD`, in the agent's time zone; default: 29 days before `to`.
    #[param(value_type = Option<String>, format = Date)]
    pub from: Option<String>,
    /// The last day, included; default: the agent's today. At most 366 days after `from`.
    #[param(value_type = Option<String>, format = Date)]
    pub to: Option<String>,
    /// `day` (default: every day of the range, in order), `member` (the assignee when each thing
    /// counted happened; unassigned last, as null) or `channel`.
    #[param(value_type = Option<String>, pattern = "^(day|member|channel)$")]
    pub group_by: Option<String>,
}

/// One group's counts and median times.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportRowDto {
    /// The day, `YYYY-MM-DD` (grouped by day).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = Date)]
    pub day: Option<String>,
    /// The assignee's id, null for unassigned (grouped by member).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = true)]
    pub member_id: Option<Option<String>>,
    /// The channel type, null for conversations without a message (grouped by channel).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = true)]
    pub channel_type: Option<Option<String>>,
    /// Conversations the contact opened (their message found it not open).
    pub opened: i64,
    /// Conversations closed.
    pub closed: i64,
    /// The contacts' messages.
    pub messages_in: i64,
    /// The business's messages, counted as they went out.
    pub messages_out: i64,
    /// The median business seconds from an opening to the team's first answer, over the first
    /// answers of the group; null when there were none.
    pub median_first_response_seconds: Option<i64>,
    /// The median business seconds from an opening (or the conversation's start) to its close,
    /// over the closes of the group; null when there were none.
    pub median_resolution_seconds: Option<i64>,
}

impl From<&ReportRow> for ReportRowDto {
    fn from(row: &ReportRow) -> Self {
        let (mut day, mut member_id, mut channel_type) = (None, None, None);
        match &row.key {
            GroupKey::Day(_) => day = row.key.value(),
            GroupKey::Member(_) => member_id = Some(row.key.value()),
            GroupKey::Channel(_) => channel_type = Some(row.key.value()),
        }
        let t = row.tally;
        Self {
            day,
            member_id,
            channel_type,
            opened: t.opened,
            closed: t.closed,
            messages_in: t.messages_in,
            messages_out: t.messages_out,
            median_first_response_seconds: row.median_first_response_seconds,
            median_resolution_seconds: row.median_resolution_seconds,
        }
    }
}

/// A conversations report.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportBody {
    /// One row per group.
    pub data: Vec<ReportRowDto>,
    /// The first day.
    #[schema(format = Date)]
    pub from: String,
    /// The last day, included.
    #[schema(format = Date)]
    pub to: String,
    /// How rows are grouped: `day`, `member` or `channel`.
    pub group_by: &'static str,
    /// The IANA time zone the days are cut in: the business hours' (UTC without them).
    pub timezone: &'static str,
}

impl From<&Report> for ReportBody {
    fn from(report: &Report) -> Self {
        Self {
            data: report.rows.iter().map(ReportRowDto::from).collect(),
            from: report.query.from.to_string(),
            to: report.query.to.to_string(),
            group_by: report.query.group_by.as_str(),
            timezone: report.timezone,
        }
    }
}

/// The report's CSV: a header row (the group's column, then the counts and medians), one line
/// per row, nulls as empty fields.
pub fn report_csv(report: &Report) -> Result<Vec<u8>, csv::Error> {
    let key = match report.query.group_by {
        GroupBy::Day => "day",
        GroupBy::Member => "member_id",
        GroupBy::Channel => "channel_type",
    };
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        key,
        "opened",
        "closed",
        "messages_in",
        "messages_out",
        "median_first_response_seconds",
        "median_resolution_seconds",
    ])?;
    let number = |n: Option<i64>| n.map(|n| n.to_string()).unwrap_or_default();
    for row in &report.rows {
        let t = row.tally;
        out.write_record([
            row.key.value().unwrap_or_default(),
            t.opened.to_string(),
            t.closed.to_string(),
            t.messages_in.to_string(),
            t.messages_out.to_string(),
            number(row.median_first_response_seconds),
            number(row.median_resolution_seconds),
        ])?;
    }
    out.into_inner().map_err(|e| e.into_error().into())
}
