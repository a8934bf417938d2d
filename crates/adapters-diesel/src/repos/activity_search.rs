//! Activity search (`search=`) through terms kept per activity (`activity_search_terms`, see
//! its migration): every suffix of the contact's lowercased name and of each channel's digits
//! (three or more), cut to [`TERM_CHARS`] characters, with the activity's status beside each (a
//! name suffix that is also a digits term is kept short: see [`name_suffixes`]). A fragment of a
//! name or a number is a prefix of some suffix, so matching is one range of the table's key per
//! condition, and the rows of that range are all that counting the matches needs. A search costs
//! what it matches: when it scanned every contact of the agent, a whole phone number cost 16.6M
//! instructions at 10,000 contacts (now 145k).
//!
//! The page is ordered by the activities' own `updated_at`, which the terms do not copy (every
//! message moves it, and rewriting twenty-odd term rows per message was most of an inbound
//! message's writes): a few matches are looked up by key; many, on SQLite, are found by a
//! [`Walk`] of the agent's activities in list order until the page is full, within a budget of
//! what the lookups would cost ([`walks`] says why PostgreSQL looks them up instead).
//!
//! The terms are written by the transactions that change what they copy: an activity's insert
//! ([`insert_terms!`]), every change of its status ([`mirror_to_terms`]), and a rename of its
//! contact or a change of its channels ([`replace_activity_terms!`]).

use diesel::dsl::auto_type;
use diesel::{ExpressionMethods, QueryDsl};
use parley_domain::model::{ActivitySearch, Channel, text};
use rustc_hash::FxHashSet;

use crate::dsl;
use crate::schema::activity_search_terms;

/// Terms are cut to this many characters; a longer fragment matches by the range of its first
/// [`TERM_CHARS`] characters, and each candidate is then checked against the whole text.
pub(crate) const TERM_CHARS: usize = 32;
/// First character of a name term.
const NAME: char = 'n';
/// First character of a digits term.
const DIGITS: char = 'd';
/// Digit fragments shorter than this are not searched, so shorter suffixes are never needed.
const MIN_DIGITS: usize = ActivitySearch::MIN_DIGITS;

/// The terms of an activity whose contact is named `contact_name` and has `channels`: every
/// suffix of its lowercased name and of each username (name terms, see [`name_suffixes`]) and of
/// each channel's digits (three or more): sorted, each once.
pub(crate) fn terms_of_channels(contact_name: &str, channels: &[Channel]) -> Vec<String> {
    let digits: Vec<String> = channels.iter().map(Channel::digits).collect();
    let digits: Vec<&str> = digits.iter().map(String::as_str).filter(|d| !d.is_empty()).collect();
    let usernames = usernames_of(channels);
    let usernames: Vec<&str> = usernames.iter().map(String::as_str).collect();
    contact_terms(&text::search_key(contact_name), &usernames, &digits)
}

/// The channels' usernames as searches match them.
pub(crate) fn usernames_of(channels: &[Channel]) -> Vec<String> {
    channels.iter().filter_map(|c| c.user().username.as_ref()).map(|u| text::search_key(u.as_str())).collect()
}

/// The terms of a contact (`contact_search_terms`): those of its lowercased name and its
/// channels' `digits` as an activity's, and every suffix of each of `texts` (its email addresses and usernames,
/// lowercased) as name terms.
pub(crate) fn contact_terms(name: &str, texts: &[&str], digits: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    name_suffixes(name, digits, &mut out);
    for text in texts {
        suffixes(NAME, text, 1, &mut out);
    }
    for d in digits {
        suffixes(DIGITS, d, MIN_DIGITS, &mut out);
    }
    each_once(out)
}

/// The name's suffixes as terms, except those a digits term already answers. A contact named by
/// its number (the default for one a template send created) would otherwise keep every suffix
/// twice, and a search for part of the number would read each match twice. A suffix `s` of
/// three or more ASCII digits, whole (not cut), that ends some channel's digits is the digits
/// term `d{s}`: any fragment of three or more characters that starts `s` is all digits, so it is
/// also the search's digit fragment and finds `d{s}`. Shorter fragments have no digit range;
/// `s`'s first two characters stay as a name term for them.
fn name_suffixes(name: &str, digits: &[&str], out: &mut Vec<String>) {
    let first = out.len();
    suffixes(NAME, name, 1, out);
    for term in &mut out[first..] {
        let s = &term[NAME.len_utf8()..];
        let answered =
            s.len() >= MIN_DIGITS && s.len() < TERM_CHARS && s.bytes().all(|b| b.is_ascii_digit()) && digits.iter().any(|d| d.ends_with(s));
        if answered {
            term.truncate(NAME.len_utf8() + 2);
        }
    }
}

fn each_once(mut terms: Vec<String>) -> Vec<String> {
    terms.sort_unstable();
    terms.dedup();
    terms
}

/// `kind` followed by each suffix of `text` at least `min_chars` long, cut to [`TERM_CHARS`].
fn suffixes(kind: char, text: &str, min_chars: usize, out: &mut Vec<String>) {
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let usable = starts.len().saturating_sub(min_chars - 1);
    for &start in &starts[..usable] {
        let suffix = &text[start..];
        let end = suffix.char_indices().nth(TERM_CHARS).map_or(suffix.len(), |(i, _)| i);
        let mut term = String::with_capacity(end + 1);
        term.push(kind);
        term.push_str(&suffix[..end]);
        out.push(term);
    }
}

/// The terms that start with a fragment: `from <= term < to`. A term of a longer fragment is cut,
/// so its matches are only candidates: `complete` is false, and each is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TermRange {
    pub from: String,
    pub to: String,
    pub complete: bool,
}

/// The range of a search's name fragment.
pub(crate) fn name_range(search: &ActivitySearch) -> TermRange {
    range(NAME, search.name_fragment())
}

/// The range of a search's digit fragment, when it has one.
pub(crate) fn digits_range(search: &ActivitySearch) -> Option<TermRange> {
    search.digit_fragment().map(|d| range(DIGITS, d))
}

fn range(kind: char, fragment: &str) -> TermRange {
    let end = fragment.char_indices().nth(TERM_CHARS).map_or(fragment.len(), |(i, _)| i);
    let mut from = String::with_capacity(end + 1);
    from.push(kind);
    from.push_str(&fragment[..end]);
    let to = successor(&from);
    TermRange { from, to, complete: end == fragment.len() }
}

/// The least text greater than every text that starts with `prefix`: its last character raised
/// by one (dropped when it cannot be, and the one before raised instead). Texts compare byte by
/// byte, and UTF-8 keeps the order of code points.
fn successor(prefix: &str) -> String {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return chars.into_iter().collect();
        }
    }
    // Only a prefix of nothing but U+10FFFF gets here; terms always start with a kind letter.
    unreachable!("a term range always starts with an ASCII kind letter")
}

/// The terms of `kept` that `wanted` lacks, and those of `wanted` that `kept` lacks; both sorted.
pub(crate) fn changes<'a>(kept: &'a [String], wanted: &'a [String]) -> (Vec<&'a str>, Vec<&'a str>) {
    let missing =
        |from: &'a [String], other: &'a [String]| from.iter().filter(|t| other.binary_search(t).is_err()).map(String::as_str).collect();
    (missing(kept, wanted), missing(wanted, kept))
}

/// The activity ids of a search's ranges, each once, in the order first seen. Hashed: sorting
/// the ids compared thousands of strings, most of a broad search's time.
pub(crate) fn distinct(ids: Vec<String>) -> Vec<String> {
    let mut seen: FxHashSet<&str> = FxHashSet::with_capacity_and_hasher(ids.len(), Default::default());
    let first: Vec<bool> = ids.iter().map(|id| seen.insert(id.as_str())).collect();
    drop(seen);
    ids.into_iter().zip(first).filter_map(|(id, first)| first.then_some(id)).collect()
}

/// Keeps the matches whose activity is in `keep` (the candidates that passed a check).
pub(crate) fn retain_in(matches: &mut Vec<String>, keep: Vec<String>) {
    let keep: FxHashSet<String> = keep.into_iter().collect();
    matches.retain(|id| keep.contains(id));
}

/// Up to this many matches are always looked up by key: few enough that no walk reads fewer rows.
pub(crate) const ALWAYS_LOOKED_UP: usize = 64;
/// A key lookup reads a B-tree path (and, on SQLite, the row by its rowid) where a walk reads the
/// next entry of an index it is on: about this many entries walked cost one lookup.
const ENTRIES_PER_LOOKUP: usize = 4;

/// A walk of the agent's activities in list order (`updated_at` descending, then id) that keeps
/// the first `end` matches: reads that double, each going on where the last stopped (from its
/// last update time, past the entries of that time already read), until it has `end`, the
/// activities end, or it has read what looking every match up would cost. Matches can cluster in
/// that order (a range of numbers made together), so the budget, not an estimate, bounds it: a
/// walk that gives up has cost at most as much again as the lookups that follow.
pub(crate) struct Walk {
    found: Vec<String>,
    end: usize,
    reached: usize,
    next: usize,
    budget: usize,
    /// The last update time read, and how many entries of that time were read.
    last: Option<(i64, usize)>,
    /// A read returned fewer entries than asked: every activity in scope was read.
    ended: bool,
}

/// The next read of a [`Walk`]: entries at or before `until` (all when `None`), skipping the first `skip`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WalkRead {
    pub until: Option<i64>,
    pub skip: usize,
    pub read: usize,
}

impl Walk {
    pub(crate) fn new(matches: usize, end: usize) -> Self {
        let budget = matches.saturating_mul(ENTRIES_PER_LOOKUP);
        let next = ALWAYS_LOOKED_UP.max(end);
        Self { found: Vec::with_capacity(end), end, reached: 0, next, budget, last: None, ended: false }
    }

    /// The next read, or `None` when the walk is over: the page found, the activities ended, or
    /// the budget spent.
    pub(crate) fn next_read(&self) -> Option<WalkRead> {
        if self.ended || self.found.len() >= self.end || self.reached >= self.budget {
            return None;
        }
        let (until, skip) = self.last.map_or((None, 0), |(at, ties)| (Some(at), ties));
        Some(WalkRead { until, skip, read: self.next })
    }

    /// Takes a read's `(id, updated_at)` entries (as many as asked, unless the activities
    /// ended), keeping the matches.
    pub(crate) fn take(&mut self, entries: Vec<(String, i64)>, is_match: impl Fn(&str) -> bool) {
        let read = entries.len();
        if let Some((_, at)) = entries.last() {
            let same = entries.iter().rev().take_while(|(_, t)| t == at).count();
            let earlier = match self.last {
                Some((last, ties)) if last == *at && same == read => ties,
                _ => 0,
            };
            self.last = Some((*at, earlier + same));
        }
        let missing = self.end - self.found.len();
        self.found.extend(entries.into_iter().map(|(id, _)| id).filter(|id| is_match(id)).take(missing));
        self.reached += read;
        if read < self.next {
            self.ended = true;
        }
        self.next = self.next.saturating_mul(2);
    }

    /// The page's ids from `offset`, or `None` when the walk gave up before finding them.
    pub(crate) fn page(mut self, offset: usize) -> Option<Vec<String>> {
        let complete = self.found.len() >= self.end || self.ended;
        complete.then(|| self.found.split_off(offset.min(self.found.len())))
    }
}

/// Whether `page_of_search!` orders many matches by a [`Walk`]: on SQLite (run `direct`, on its
/// blocking pool), whose planner looks every match of the `json_each` list up by key (1,000
/// matches: 11.6M instructions against 3.5M walking). PostgreSQL (`awaited`) sends the one
/// lookup query: its planner, knowing the list's length, walks the ordered index itself with the
/// list hashed when that is cheaper, and each read of a walk would cost a round trip. `mode` is
/// the body's mode as written (`stringify!($mode)`), so the answer is a constant of each expansion.
pub(crate) const fn walks(mode: &str) -> bool {
    matches!(mode.as_bytes(), b"direct")
}

/// Writes the terms of a new activity; run in the transaction that inserts it.
macro_rules! insert_terms {
    ($conn:expr, $agent:expr, $activity:expr, $status:expr, $terms:expr) => {{
        let rows: Vec<crate::repos::activity_search::TermRow> = $terms
            .into_iter()
            .map(|term| crate::repos::activity_search::TermRow {
                agent_id: $agent.to_string(),
                term: term.to_string(),
                activity_id: $activity.to_string(),
                status: $status.to_string(),
            })
            .collect();
        crate::repos::activity_search::WriteTerms::write_terms($conn, rows).await?
    }};
}

/// One row of `activity_search_terms`.
#[derive(diesel::Insertable)]
#[diesel(table_name = crate::schema::activity_search_terms)]
pub(crate) struct TermRow {
    pub agent_id: String,
    pub term: String,
    pub activity_id: String,
    pub status: String,
}

/// One row of `contact_search_terms`.
#[derive(diesel::Insertable)]
#[diesel(table_name = crate::schema::contact_search_terms)]
pub(crate) struct ContactTermRow {
    pub agent_id: String,
    pub term: String,
    pub contact_id: String,
}

/// Inserts term rows, as each backend does it best.
pub(crate) trait WriteTerms {
    async fn write_terms(&mut self, rows: Vec<TermRow>) -> diesel::QueryResult<()>;
    async fn write_contact_terms(&mut self, rows: Vec<ContactTermRow>) -> diesel::QueryResult<()>;
}

#[cfg(feature = "postgres")]
impl WriteTerms for crate::pool::PgConn {
    async fn write_terms(&mut self, rows: Vec<TermRow>) -> diesel::QueryResult<()> {
        use diesel_async::RunQueryDsl;
        // One multi-row statement: an activity has twenty-odd terms, and a round trip each
        // was most of a new conversation's cost.
        if !rows.is_empty() {
            diesel::insert_into(crate::schema::activity_search_terms::table).values(rows).execute(self).await?;
        }
        Ok(())
    }

    async fn write_contact_terms(&mut self, rows: Vec<ContactTermRow>) -> diesel::QueryResult<()> {
        use diesel_async::RunQueryDsl;
        if !rows.is_empty() {
            diesel::insert_into(crate::schema::contact_search_terms::table).values(rows).execute(self).await?;
        }
        Ok(())
    }
}

#[cfg(feature = "sqlite")]
impl WriteTerms for crate::pool::SqliteWriteConn {
    async fn write_terms(&mut self, rows: Vec<TermRow>) -> diesel::QueryResult<()> {
        use diesel_async::RunQueryDsl;
        // A cached statement per row costs microseconds in process (diesel-async cannot run
        // diesel's SQLite batch insert).
        for row in rows {
            diesel::insert_into(crate::schema::activity_search_terms::table).values(row).execute(self).await?;
        }
        Ok(())
    }

    async fn write_contact_terms(&mut self, rows: Vec<ContactTermRow>) -> diesel::QueryResult<()> {
        use diesel_async::RunQueryDsl;
        for row in rows {
            diesel::insert_into(crate::schema::contact_search_terms::table).values(row).execute(self).await?;
        }
        Ok(())
    }
}

/// Copies an activity's changed status onto its terms; run in the transaction that changes it.
#[auto_type(dsl_path = "crate::dsl")]
pub(crate) fn mirror_to_terms<'a>(activity: &'a str, status: &'a str) -> _ {
    dsl::update(activity_search_terms::table.filter(activity_search_terms::activity_id.eq(activity)))
        .set(activity_search_terms::status.eq(status))
}

/// Replaces the terms of the agent's activity of contact `$contact` (if it has one) with those
/// of a contact named `$name` with `$channels` ([`terms_of_channels`]); run in the transaction
/// that renames the contact or changes its channels.
macro_rules! replace_activity_terms {
    ($conn:expr, $agent:expr, $contact:expr, $name:expr, $channels:expr) => {{
        use crate::schema::{activities, activity_search_terms as t};
        let activity: Option<(String, String)> = activities::table
            .filter(activities::agent_id.eq($agent))
            .filter(activities::contact_id.eq($contact))
            .select((activities::id, activities::status))
            .first($conn)
            .await
            .optional()?;
        if let Some((id, status)) = activity {
            let kept: Vec<String> = t::table.filter(t::activity_id.eq(&id)).select(t::term).order(t::term).load($conn).await?;
            let channels: &[parley_domain::model::Channel] = $channels;
            let terms = crate::repos::activity_search::terms_of_channels($name, channels);
            // Only what differs is written: most contact updates keep the name.
            let (gone, new) = crate::repos::activity_search::changes(&kept, &terms);
            if !gone.is_empty() {
                diesel::delete(t::table.filter(t::activity_id.eq(&id)).filter(crate::in_list::in_list(t::term, gone)))
                    .execute($conn)
                    .await?;
            }
            crate::repos::activity_search::insert_terms!($conn, $agent, &id, &status, new);
        }
    }};
}

/// The activity ids of the agent's terms in `$range`, of activities in `$status` when given.
macro_rules! term_rows {
    ($mode:ident, $conn:expr, $agent:expr, $range:expr, $status:expr) => {{
        use crate::schema::activity_search_terms as t;
        let range: &crate::repos::activity_search::TermRange = $range;
        let q = t::table
            .filter(t::agent_id.eq($agent))
            .filter(t::term.ge(range.from.as_str()))
            .filter(t::term.lt(range.to.as_str()))
            .select(t::activity_id);
        let rows: Vec<String> = match $status {
            Some(status) => crate::pool::run!($mode, load, $conn, q.filter(t::status.eq(status))),
            None => crate::pool::run!($mode, load, $conn, q),
        };
        rows
    }};
}

/// `(total, rows of the page)` of a search (`$filter.search` is set), its other filters applied,
/// each query run as `$mode` says (see [`run!`](crate::pool::run)).
macro_rules! page_of_search {
    ($mode:ident, $conn:ident, $agent:ident, $filter:ident, $page:ident) => {{
        use crate::contains::contains;
        use crate::in_list::in_list;
        use crate::pool::run;
        use crate::repos::activity_search as s;
        use crate::schema::{activities, activity_tags, contact_channels, contacts};
        let (agent, filter, page): (&str, &ActivityFilter, PageRequest) = ($agent.as_str(), &$filter, $page);
        let search = filter.search.as_ref().expect("a search page has a search");
        let status = filter.status.single().map(ActivityStatus::as_str);

        // Rows of both ranges, an activity possibly on several (two suffixes, two conditions):
        // made distinct once, at the end.
        let name = s::name_range(search);
        let mut matches = s::term_rows!($mode, $conn, agent, &name, status);
        // A fragment longer than a term matched by its start: keep the contacts whose whole name holds it.
        if !name.complete && !matches.is_empty() {
            let ids: Vec<&str> = matches.iter().map(String::as_str).collect();
            let keep: Vec<String> = run!(
                $mode,
                load,
                $conn,
                activities::table
                    .inner_join(contacts::table)
                    .filter(in_list(activities::id, &ids))
                    .filter(contains(contacts::name_search, search.name_fragment()))
                    .select(activities::id)
            );
            s::retain_in(&mut matches, keep);
        }
        if let Some(digits) = s::digits_range(search) {
            let mut by_digits = s::term_rows!($mode, $conn, agent, &digits, status);
            if !digits.complete && !by_digits.is_empty() {
                let ids: Vec<&str> = by_digits.iter().map(String::as_str).collect();
                let fragment = search.digit_fragment().unwrap_or_default();
                let keep: Vec<String> = run!(
                    $mode,
                    load,
                    $conn,
                    activities::table
                        .inner_join(contact_channels::table.on(contact_channels::contact_id.eq(activities::contact_id)))
                        .filter(in_list(activities::id, &ids))
                        .filter(contains(contact_channels::digits, fragment))
                        .select(activities::id)
                );
                s::retain_in(&mut by_digits, keep);
            }
            matches.append(&mut by_digits);
        }
        let mut matches = s::distinct(matches);
        if let Some(tag) = &filter.tag
            && !matches.is_empty()
        {
            let ids: Vec<&str> = matches.iter().map(String::as_str).collect();
            let tagged: Vec<String> = run!(
                $mode,
                load,
                $conn,
                activity_tags::table
                    .filter(activity_tags::tag_id.eq(tag.as_str()))
                    .filter(in_list(activity_tags::activity_id, &ids))
                    .select(activity_tags::activity_id)
            );
            s::retain_in(&mut matches, tagged);
        }
        // Several statuses, an assignee, a channel type, unread, since: the matches they keep.
        if crate::repos::activity_filters::has_inbox_filters(filter) && !matches.is_empty() {
            let ids: Vec<&str> = matches.iter().map(String::as_str).collect();
            let keep: Vec<String> = run!(
                $mode,
                load,
                $conn,
                crate::repos::activity_filters::filtered!(agent, filter).filter(in_list(activities::id, &ids)).select(activities::id)
            );
            s::retain_in(&mut matches, keep);
        }
        let total = matches.len() as i64;
        let (offset, limit) = (usize::try_from(page.offset()).unwrap_or(usize::MAX), page.limit() as usize);
        let end = offset.saturating_add(limit);
        // Many matches: the agent's activities in list order until `end` of them are matches,
        // within a budget of what looking them all up would cost.
        let walked: Option<Vec<String>> = if offset >= matches.len() || matches.len() <= s::ALWAYS_LOOKED_UP || !s::walks(stringify!($mode))
        {
            None
        } else {
            let wanted: rustc_hash::FxHashSet<&str> = matches.iter().map(String::as_str).collect();
            let mut walk = s::Walk::new(matches.len(), end);
            while let Some(next) = walk.next_read() {
                let q = activities::table
                    .filter(activities::agent_id.eq(agent))
                    .filter(activities::updated_at.le(next.until.unwrap_or(i64::MAX)))
                    .order((activities::updated_at.desc(), activities::id.desc()))
                    .select((activities::id, activities::updated_at))
                    .limit(next.read as i64)
                    .offset(next.skip as i64);
                let entries: Vec<(String, i64)> = match status {
                    Some(status) => run!($mode, load, $conn, q.filter(activities::status.eq(status))),
                    None => run!($mode, load, $conn, q),
                };
                walk.take(entries, |id| wanted.contains(id));
            }
            walk.page(offset)
        };
        // The walk found the page's ids; otherwise (few matches, PostgreSQL, or a walk past its
        // budget) every match is looked up by key and the page taken from them in order.
        let (ids, skip) = match walked {
            Some(ids) => (ids, 0),
            None => (matches, offset),
        };
        let rows: Vec<ViewRow> = if skip >= ids.len() {
            Vec::new()
        } else {
            run!(
                $mode,
                load,
                $conn,
                activities::table
                    .filter(activities::agent_id.eq(agent))
                    .filter(in_list(activities::id, &ids))
                    .order((activities::updated_at.desc(), activities::id.desc()))
                    .limit(limit as i64)
                    .offset(skip as i64)
                    .select(ViewRow::as_select())
            )
        };
        (total, rows)
    }};
}

pub(crate) use {insert_terms, page_of_search, replace_activity_terms, term_rows};

#[cfg(test)]
mod tests {
    use super::*;

    /// The terms of an activity whose contact's lowercased name is `name` and whose channels
    /// have `digits`.
    fn terms<const N: usize>(name: &str, digits: [&str; N]) -> Vec<String> {
        contact_terms(name, &[], &digits)
    }

    #[test]
    fn every_suffix_is_a_term_once_cut_to_length() {
        assert_eq!(terms("anna", ["5550100"]), ["d0100", "d100", "d50100", "d550100", "d5550100", "na", "nanna", "nna", "nnna"]);
        assert_eq!(terms("anna", []).iter().filter(|t| t.as_str() == "na").count(), 1, "each term once");
        assert_eq!(terms("", ["12"]), Vec::<String>::new(), "no digits term under three digits");
        let long = "é".repeat(40);
        let cut = terms(&long, []);
        assert_eq!(cut.len(), 32, "suffixes of 32 to 40 characters cut to the same 32");
        assert!(cut.iter().all(|t| t.chars().count() <= TERM_CHARS + 1));
        assert_eq!(terms("añ😀", []), ["nañ😀", "nñ😀", "n😀"], "suffixes start at characters, not bytes");
    }

    #[test]
    fn a_name_that_is_the_number_keeps_its_digits_once() {
        let both = terms("+15550100", ["15550100"]);
        assert!(both.contains(&"n+15550100".to_string()), "a suffix that is not all digits stays");
        assert!(both.contains(&"d5550100".to_string()));
        assert!(!both.iter().any(|t| t.starts_with('n') && t.len() > 3 && t[1..].bytes().all(|b| b.is_ascii_digit())), "{both:?}");
        assert!(both.contains(&"n55".to_string()) && both.contains(&"n00".to_string()), "two digits stay for one- and two-digit fragments");
        let other = terms("ana 5550100", ["4449999"]);
        assert!(other.contains(&"n5550100".to_string()), "digits that are no channel's stay name terms");
        let long = "1".repeat(40);
        assert!(terms(&long, [long.as_str()]).contains(&format!("n{}", "1".repeat(32))), "a cut suffix stays");
    }

    #[test]
    fn a_rename_writes_only_the_terms_that_differ() {
        let owned = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        let (kept, wanted) = (owned(&["na", "nab", "nb"]), owned(&["na", "nac", "nc"]));
        assert_eq!(changes(&kept, &wanted), (vec!["nab", "nb"], vec!["nac", "nc"]));
        assert_eq!(changes(&kept, &kept), (vec![], vec![]), "an unchanged name writes nothing");
    }

    #[test]
    fn a_fragment_is_a_range_of_terms() {
        let search = ActivitySearch::new("Ana 555").unwrap();
        assert_eq!(name_range(&search), TermRange { from: "nana 555".into(), to: "nana 556".into(), complete: true });
        assert_eq!(digits_range(&search).unwrap(), TermRange { from: "d555".into(), to: "d556".into(), complete: true });
        assert!(digits_range(&ActivitySearch::new("Ana").unwrap()).is_none());
        let long = ActivitySearch::new(&"x".repeat(40)).unwrap();
        assert_eq!(name_range(&long).from.len(), 33);
        assert!(!name_range(&long).complete);
        assert_eq!(successor("nz\u{10FFFF}"), "n{");
        assert_eq!(successor("n\u{D7FF}"), "n\u{E000}", "surrogates are not characters");
    }

    #[test]
    fn matches_are_distinct_in_the_order_first_seen() {
        let owned = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(distinct(owned(&["b", "a", "a", "b"])), ["b", "a"]);
    }

    #[test]
    fn a_walk_doubles_its_reads_each_going_on_where_the_last_stopped() {
        // Entry i updated at 10,000 - i / 2: two of each time.
        let entries = |from: usize, n: usize| (from..from + n).map(|i| (format!("a{i}"), 10_000 - (i / 2) as i64)).collect::<Vec<_>>();
        let from_100 = |id: &str| id[1..].parse::<usize>().unwrap() >= 100;
        // 1,000 matches, the page's 20 from the 100th entry on.
        let mut walk = Walk::new(1_000, 20);
        assert_eq!(walk.next_read(), Some(WalkRead { until: None, skip: 0, read: 64 }));
        walk.take(entries(0, 64), from_100);
        assert_eq!(walk.next_read(), Some(WalkRead { until: Some(9_969), skip: 2, read: 128 }), "entries 62 and 63 had time 9,969");
        walk.take(entries(64, 128), from_100);
        assert_eq!(walk.next_read(), None, "twenty found");
        assert_eq!(walk.page(5).unwrap(), entries(105, 15).into_iter().map(|(id, _)| id).collect::<Vec<_>>());
    }

    #[test]
    fn a_walk_counts_ties_across_reads_of_one_time() {
        let tied = |from: usize, n: usize| (from..from + n).map(|i| (format!("a{i}"), 7)).collect::<Vec<_>>();
        let mut walk = Walk::new(1_000, 20);
        walk.take(tied(0, 64), |_| false);
        walk.take(tied(64, 128), |_| false);
        assert_eq!(walk.next_read(), Some(WalkRead { until: Some(7), skip: 192, read: 256 }), "every entry so far had time 7");
    }

    #[test]
    fn a_walk_ends_with_the_activities_or_gives_up_past_its_budget() {
        let mut short = Walk::new(100, 20);
        short.take(vec![("a".into(), 2), ("b".into(), 1)], |id| id == "b");
        assert_eq!(short.next_read(), None, "fewer entries than asked: the activities ended");
        assert_eq!(short.page(0).unwrap(), ["b"]);
        // 100 matches may cost 400 entries: 64 + 128 + 256 read, none of them matches.
        let mut far = Walk::new(100, 20);
        let mut at = 1_000_000;
        while let Some(next) = far.next_read() {
            far.take(
                (0..next.read)
                    .map(|_| {
                        ("x".to_string(), {
                            at -= 1;
                            at
                        })
                    })
                    .collect(),
                |_| false,
            );
        }
        assert_eq!(far.reached, 448);
        assert!(far.page(0).is_none(), "past the budget the matches are looked up instead");
    }
}
