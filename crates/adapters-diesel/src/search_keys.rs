//! Deriving the kept search keys again after the rule that folds them changed.
//!
//! Name searches match kept keys (`contacts.name_search`, the contact and activity search terms
//! built from it, `canned_responses.text_key`), each derived by the domain's
//! [`text::search_key`](parley_domain::model::text::search_key). SQL cannot redo that rule
//! (Unicode decomposition), so a migration that changes it leaves a row in `pending_refreshes`,
//! and [`Store::migrate`](crate::Store::migrate) calls [`refresh_pending`] after migrating: every
//! key whose rule gives another value now is written again, then the row is deleted. A refresh
//! cut short (a crash, a stop) is taken up again by the next start; running it twice, or in two
//! processes at once, writes the same values.
//!
//! Changing the rule: add a migration that inserts `('search_keys')` into `pending_refreshes`.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::text::search_key;

use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, with_conn};
use crate::repos::contact_search::replace_contact_terms;
use crate::schema::{canned_responses, contacts, pending_refreshes};

/// The note a migration leaves when the search keys must be derived again.
const SEARCH_KEYS: &str = "search_keys";

/// Rows read per batch: a page of ids, so memory stays flat whatever the table's size.
const BATCH: i64 = 500;

/// Derives again what a migration asked for; returns how many rows changed.
pub(crate) async fn refresh_pending(store: &Store) -> Result<u64, DbError> {
    let pending: Vec<String> = with_conn!(store, |conn| Ok(pending_refreshes::table.select(pending_refreshes::name).load(conn).await?))?;
    if !pending.iter().any(|p| p == SEARCH_KEYS) {
        return Ok(0);
    }
    tracing::info!("deriving the kept search keys again (names now match without accents)");
    let contacts = refresh_contacts(store).await?;
    let responses = refresh_canned_responses(store).await?;
    with_conn!(store, |conn| {
        diesel::delete(pending_refreshes::table.filter(pending_refreshes::name.eq(SEARCH_KEYS))).execute(conn).await?;
        Ok(())
    })?;
    tracing::info!(contacts, canned_responses = responses, "search keys derived again");
    Ok(contacts + responses)
}

/// Each contact whose name folds to another key now: the key, then its contact and activity
/// terms, in one transaction. A contact renamed meanwhile is left alone: its rename wrote both.
async fn refresh_contacts(store: &Store) -> Result<u64, DbError> {
    let (mut after, mut changed, mut seen) = (String::new(), 0u64, 0u64);
    loop {
        let from = after.clone();
        let rows: Vec<(String, String, String, String)> = with_conn!(store, |conn| Ok(contacts::table
            .filter(contacts::id.gt(&from))
            .order(contacts::id)
            .limit(BATCH)
            .select((contacts::agent_id, contacts::id, contacts::profile_name, contacts::name_search))
            .load(conn)
            .await?))?;
        let Some(last) = rows.last() else { break };
        after = last.1.clone();
        seen += rows.len() as u64;
        for (agent, id, name, old_key) in rows {
            let key = search_key(&name);
            if key == old_key {
                continue;
            }
            let updated = in_transaction!(store, |conn| {
                let n = diesel::update(
                    contacts::table
                        .filter(contacts::agent_id.eq(&agent))
                        .filter(contacts::id.eq(&id))
                        .filter(contacts::profile_name.eq(&name))
                        .filter(contacts::name_search.eq(&old_key)),
                )
                .set(contacts::name_search.eq(&key))
                .execute(conn)
                .await?;
                if n > 0 {
                    replace_contact_terms!(conn, agent.as_str(), id.as_str());
                }
                Ok(n > 0)
            })?;
            changed += u64::from(updated);
        }
        tracing::info!(contacts_read = seen, contacts_changed = changed, "deriving search keys again");
    }
    Ok(changed)
}

/// Each canned response whose text folds to another key now.
async fn refresh_canned_responses(store: &Store) -> Result<u64, DbError> {
    let (mut after, mut changed) = (String::new(), 0u64);
    loop {
        let from = after.clone();
        let rows: Vec<(String, String, String)> = with_conn!(store, |conn| Ok(canned_responses::table
            .filter(canned_responses::id.gt(&from))
            .order(canned_responses::id)
            .limit(BATCH)
            .select((canned_responses::id, canned_responses::text, canned_responses::text_key))
            .load(conn)
            .await?))?;
        let Some(last) = rows.last() else { break };
        after = last.0.clone();
        for (id, text, old_key) in rows {
            let key = search_key(&text);
            if key == old_key {
                continue;
            }
            let n = in_transaction!(store, |conn| Ok(diesel::update(
                canned_responses::table
                    .filter(canned_responses::id.eq(&id))
                    .filter(canned_responses::text.eq(&text))
                    .filter(canned_responses::text_key.eq(&old_key))
            )
            .set(canned_responses::text_key.eq(&key))
            .execute(conn)
            .await?))?;
            changed += n as u64;
        }
    }
    Ok(changed)
}
