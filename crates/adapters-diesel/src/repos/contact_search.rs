//! The contact list's filters: `search` through kept terms (`contact_search_terms`, see its
//! migration; built as activity search's, `activity_search.rs`, with the email addresses' suffixes
//! as name terms), and `channel_type` through the channels' (agent, type) index.
//!
//! The terms are written by the transactions that change what they copy: a contact's insert
//! (`write_contact!`) and every change of its name, email or channels ([`replace_contact_terms!`],
//! a rename through its activity included).

macro_rules! write_contact_terms {
    ($conn:expr, $agent:expr, $contact:expr, $terms:expr) => {{
        let rows: Vec<crate::repos::activity_search::ContactTermRow> = $terms
            .into_iter()
            .map(|term| crate::repos::activity_search::ContactTermRow {
                agent_id: $agent.to_string(),
                term: term.to_string(),
                contact_id: $contact.to_string(),
            })
            .collect();
        crate::repos::activity_search::WriteTerms::write_contact_terms($conn, rows).await?
    }};
}

/// Brings the terms of the agent's contact `$contact`, and its activity's terms
/// ([`replace_activity_terms!`](crate::repos::activity_search::replace_activity_terms)), in line
/// with its row as it now is (name, email, channels); run in the transaction that changed the
/// row, after the change.
/// Only what differs is written: most updates keep the name and the email.
macro_rules! replace_contact_terms {
    ($conn:expr, $agent:expr, $contact:expr) => {{
        use crate::schema::{contact_search_terms as t, contacts};
        let (agent, contact): (&str, &str) = ($agent, $contact);
        let row: Option<(String, Option<String>, String)> = contacts::table
            .filter(contacts::agent_id.eq(agent))
            .filter(contacts::id.eq(contact))
            .select((contacts::name_search, contacts::email, contacts::channel_list))
            .first($conn)
            .await
            .optional()?;
        if let Some((name, email, channel_list)) = row {
            let channels = crate::repos::channel_lists::parse_channel_list(&channel_list, ("contact", contact))?;
            crate::repos::activity_search::replace_activity_terms!($conn, agent, contact, &name, &channels);
            let wanted = crate::repos::contact_search::terms_from(&name, email.as_deref(), &channels);
            let kept: Vec<String> = t::table.filter(t::contact_id.eq(contact)).select(t::term).order(t::term).load($conn).await?;
            let (gone, new) = crate::repos::activity_search::changes(&kept, &wanted);
            if !gone.is_empty() {
                diesel::delete(t::table.filter(t::contact_id.eq(contact)).filter(crate::in_list::in_list(t::term, gone)))
                    .execute($conn)
                    .await?;
            }
            crate::repos::contact_search::write_contact_terms!($conn, agent, contact, new);
        }
    }};
}

/// The terms of `contact` as it is built.
pub(crate) fn terms_of(contact: &parley_domain::model::Contact) -> Vec<String> {
    terms_from(&contact.profile_name.search_key(), contact.email.as_ref().map(|e| e.as_str()), &contact.channels)
}

/// The terms of a contact with lowercased name `name`, email `email` and `channels`: sorted,
/// each once. Email addresses and usernames are name terms; phone numbers digits terms.
pub(crate) fn terms_from(name: &str, email: Option<&str>, channels: &[parley_domain::model::Channel]) -> Vec<String> {
    use parley_domain::model::ChannelType;
    let usernames = crate::repos::activity_search::usernames_of(channels);
    let texts: Vec<&str> = email
        .into_iter()
        .chain(channels.iter().filter(|c| c.channel_type() == ChannelType::Email).map(|c| c.channel_id()))
        .chain(usernames.iter().map(String::as_str))
        .collect();
    let digits: Vec<String> = channels.iter().map(|c| c.digits()).collect();
    let digits: Vec<&str> = digits.iter().map(String::as_str).filter(|d| !d.is_empty()).collect();
    crate::repos::activity_search::contact_terms(name, &texts, &digits)
}

/// The contact ids of the agent's terms in `$range`, at most `$most` of them.
macro_rules! contact_term_rows {
    ($mode:ident, $conn:expr, $agent:expr, $range:expr, $most:expr) => {{
        use crate::schema::contact_search_terms as t;
        let range: &crate::repos::activity_search::TermRange = $range;
        let rows: Vec<String> = crate::pool::run!(
            $mode,
            load,
            $conn,
            t::table
                .filter(t::agent_id.eq($agent))
                .filter(t::term.ge(range.from.as_str()))
                .filter(t::term.lt(range.to.as_str()))
                .select(t::contact_id)
                .limit($most)
        );
        rows
    }};
}

/// `Some((total, rows of the page))` of a filtered contact list (`$filter` is not empty), each
/// query run as `$mode` says (see [`run!`](crate::pool::run)). With `$probe` true (inline),
/// `None` when a term range holds [`INLINE_MATCHES`] rows or more, or there is no search (the
/// caller does not probe a channel type alone): then
/// the list is read on the blocking pool (as the activity filters are: `activity_filters.rs`).
/// Every term row in a range is a match, so the probe reads a bounded number of rows.
///
/// [`INLINE_MATCHES`]: crate::repos::activity_filters::INLINE_MATCHES
macro_rules! page_of_filtered_contacts {
    ($mode:ident, $conn:ident, $agent:ident, $filter:ident, $page:ident, $probe:ident) => {{
        use crate::in_list::in_list;
        use crate::pool::run;
        use crate::repos::activity_filters::INLINE_MATCHES;
        use crate::repos::activity_search as s;
        use crate::repos::contact_search::contact_term_rows;
        use crate::schema::{contact_channels, contacts};
        let (agent, filter, page, probe): (&str, &ContactFilter, PageRequest, bool) = ($agent.as_str(), &$filter, $page, $probe);
        let newest_first = (contacts::created_at.desc(), contacts::id.desc());
        let most = if probe { INLINE_MATCHES } else { i64::MAX };
        match &filter.search {
            None if probe => None,
            Some(search) => 'listed: {
                let name = s::name_range(search);
                let mut matches = contact_term_rows!($mode, $conn, agent, &name, most);
                let digits = s::digits_range(search);
                if let Some(digits) = &digits {
                    matches.append(&mut contact_term_rows!($mode, $conn, agent, digits, most));
                }
                if probe && matches.len() >= INLINE_MATCHES as usize {
                    break 'listed None;
                }
                let mut matches = s::distinct(matches);
                // A fragment longer than a term matched by its start: keep the contacts that
                // hold it whole, checked by the list's own rule.
                let cut = !name.complete || digits.as_ref().is_some_and(|d| !d.complete);
                let channel_type = filter.channel_type.map(ChannelType::as_str);
                if (cut || channel_type.is_some()) && !matches.is_empty() {
                    let ids: Vec<&str> = matches.iter().map(String::as_str).collect();
                    let candidates: Vec<ContactRow> =
                        run!($mode, load, $conn, contacts::table.filter(in_list(contacts::id, &ids)).select(ContactRow::as_select()));
                    let mut keep = Vec::with_capacity(candidates.len());
                    for row in candidates {
                        let contact = row.into_domain()?;
                        if filter.matches(&contact) {
                            keep.push(contact.id.into_string());
                        }
                    }
                    s::retain_in(&mut matches, keep);
                }
                let total = matches.len() as i64;
                let rows: Vec<ContactRow> = if total <= page.offset() as i64 {
                    Vec::new()
                } else {
                    let ids: Vec<&str> = matches.iter().map(String::as_str).collect();
                    run!(
                        $mode,
                        load,
                        $conn,
                        contacts::table
                            .filter(contacts::agent_id.eq(agent))
                            .filter(in_list(contacts::id, &ids))
                            .order(newest_first)
                            .limit(i64::from(page.limit()))
                            .offset(page.offset() as i64)
                            .select(ContactRow::as_select())
                    )
                };
                Some((total, rows))
            }
            None => {
                let channel_type = filter.channel_type.map_or("", ChannelType::as_str);
                let of_type = || {
                    contact_channels::table
                        .filter(contact_channels::agent_id.eq(agent))
                        .filter(contact_channels::channel_type.eq(channel_type))
                        .select(contact_channels::contact_id)
                };
                let total: i64 = run!(
                    $mode,
                    one,
                    $conn,
                    of_type().select(diesel::dsl::sql::<diesel::sql_types::BigInt>("COUNT(DISTINCT contact_channels.contact_id)"))
                );
                let rows: Vec<ContactRow> = run!(
                    $mode,
                    load,
                    $conn,
                    contacts::table
                        .filter(contacts::agent_id.eq(agent))
                        .filter(contacts::id.eq_any(of_type()))
                        .order(newest_first)
                        .limit(i64::from(page.limit()))
                        .offset(page.offset() as i64)
                        .select(ContactRow::as_select())
                );
                Some((total, rows))
            }
        }
    }};
}

pub(crate) use {contact_term_rows, page_of_filtered_contacts, replace_contact_terms, write_contact_terms};

#[cfg(test)]
mod tests {
    use super::terms_from;
    use parley_domain::model::{Channel, ChannelType, PlatformUser};

    #[test]
    fn email_addresses_and_usernames_are_name_terms_and_numbers_digit_terms() {
        let user = PlatformUser::from_platform(Some("MX.77"), None, Some("Ana.Lopez")).unwrap();
        let channels = vec![
            Channel::new(ChannelType::Whatsapp, "5215550100").unwrap(),
            Channel::new(ChannelType::Email, "ana@shop.mx").unwrap(),
            Channel::new(ChannelType::Whatsapp, "MX.77").unwrap().with_user(user),
        ];
        let terms = terms_from("ana", Some("ana.b@mail.com"), &channels);
        for wanted in ["nana", "nana@shop.mx", "n@shop.mx", "nana.b@mail.com", "nmail.com", "d5550100", "d100", "nana.lopez", "nlopez"] {
            assert!(terms.contains(&wanted.to_string()), "{wanted} in {terms:?}");
        }
        assert!(!terms.iter().any(|t| t == "d00"), "digit terms have three digits or more");
        assert!(!terms.iter().any(|t| t == "d77"), "a user id's digits are no phone number's");
    }
}
