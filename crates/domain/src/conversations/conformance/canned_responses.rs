//! Canned responses (`CannedResponseRepository`): unique short codes per agent, the cap, and
//! `search` held to [`CannedSearch::matches`] over random texts, whole and in pages.

use super::inbox::Dice;
use super::{agent, id, page, t};
use crate::StoreError;
use crate::model::*;
use crate::ports::Repositories;

fn canned(agent: &AgentId, code: &str, text: &str, at: Timestamp) -> CannedResponse {
    CannedResponse {
        id: CannedResponseId::new(id("cnr")),
        agent_id: agent.clone(),
        short_code: ShortCode::new(code).unwrap(),
        text: CannedText::new(text).unwrap(),
        created_at: at,
        updated_at: at,
    }
}

const MAX: u32 = MAX_CANNED_RESPONSES_PER_AGENT;

/// Short codes are unique per agent on insert and update (`Conflict`) and free again once
/// deleted; responses read back whole, list by short code, and stay their agent's.
pub async fn canned_responses_are_unique_by_short_code_and_stay_their_agents(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let thanks = canned(&a, "thanks", "Thank you!\nThe team", t(0));
    assert!(r.canned_responses.insert(&thanks, MAX).await.unwrap());
    let dup = r.canned_responses.insert(&canned(&a, "thanks", "Again", t(1)), MAX).await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
    let foreign = canned(&b, "thanks", "Merci", t(1));
    assert!(r.canned_responses.insert(&foreign, MAX).await.unwrap(), "another agent may use the same short code");
    assert_eq!(r.canned_responses.get(&a, &thanks.id).await.unwrap(), Some(thanks.clone()), "stored whole, lines kept");

    let mut hours = canned(&a, "hours", "9 to 5", t(2));
    r.canned_responses.insert(&hours, MAX).await.unwrap();
    hours.short_code = ShortCode::new("thanks").unwrap();
    assert!(matches!(r.canned_responses.update(&hours).await, Err(StoreError::Conflict(_))), "update to a taken code");
    hours.short_code = ShortCode::new("opening").unwrap();
    hours.text = CannedText::new("10 to 6").unwrap();
    hours.updated_at = t(3);
    assert!(r.canned_responses.update(&hours).await.unwrap());
    assert_eq!(r.canned_responses.get(&a, &hours.id).await.unwrap(), Some(hours.clone()));

    let listed = r.canned_responses.list(&a, None, page(10, 0)).await.unwrap();
    let codes: Vec<&str> = listed.items.iter().map(|c| c.short_code.as_str()).collect();
    assert_eq!((codes, listed.total), (vec!["opening", "thanks"], 2), "by short code, the agent's own");

    assert!(r.canned_responses.get(&a, &foreign.id).await.unwrap().is_none(), "another agent's is invisible");
    let mut stolen = foreign.clone();
    stolen.agent_id = a.clone();
    stolen.short_code = ShortCode::new("stolen").unwrap();
    assert!(!r.canned_responses.update(&stolen).await.unwrap(), "update is scoped by agent");
    assert!(!r.canned_responses.delete(&a, &foreign.id).await.unwrap(), "delete is scoped by agent");
    assert!(r.canned_responses.get(&b, &foreign.id).await.unwrap().is_some());

    assert!(r.canned_responses.delete(&a, &thanks.id).await.unwrap());
    assert!(!r.canned_responses.delete(&a, &thanks.id).await.unwrap(), "deleted once");
    assert!(r.canned_responses.insert(&canned(&a, "thanks", "Reused", t(4)), MAX).await.unwrap(), "a deleted code is free again");
}

/// An insert past the agent's limit is `false` and writes nothing; the limit is per agent.
pub async fn canned_responses_stop_at_the_agents_limit(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    for code in ["one", "two", "three"] {
        assert!(r.canned_responses.insert(&canned(&a, code, "x", t(0)), 3).await.unwrap());
    }
    assert!(!r.canned_responses.insert(&canned(&a, "four", "x", t(0)), 3).await.unwrap(), "the fourth is refused");
    assert_eq!(r.canned_responses.list(&a, None, page(10, 0)).await.unwrap().total, 3, "and nothing written");
    assert!(r.canned_responses.insert(&canned(&b, "four", "x", t(0)), 3).await.unwrap(), "the limit is per agent");
}

/// Words with case, accents and LIKE's and regular expressions' special characters, so a
/// backend that folds differently, or treats `%`/`_` as patterns, lists something else.
const WORDS: [&str; 12] = ["Hello", "ÜBER", "über", "50%", "a_b", "Café", "dot.*", "ORDER", "order-12", "\\n", "İstanbul", "ß"];
const CODE_PARTS: [&str; 6] = ["hi", "order", "ship", "a_b", "x-1", "über"];

/// A search lists exactly what [`CannedSearch::matches`] keeps, by short code, whole and in
/// pages, with exact totals, over random texts with case, accents and pattern characters.
pub async fn canned_response_search_equals_its_definition_for_random_texts(r: Repositories) {
    for seed in [11_u64, 0x5eed_cafe, 987_654_321] {
        let a = agent(&r, "A").await;
        let b = agent(&r, "B").await;
        let mut dice = Dice(seed);
        for n in 0..30 {
            let part = dice.pick(&CODE_PARTS).replace('ü', "u");
            let code = format!("{part}{n}");
            let words: Vec<&str> = (0..1 + dice.roll(5)).map(|_| dice.pick(&WORDS)).collect();
            let sep = if dice.chance(30) { "\n" } else { " " };
            r.canned_responses.insert(&canned(&a, &code, &words.join(sep), t(n as i64)), MAX).await.unwrap();
            if dice.chance(20) {
                r.canned_responses.insert(&canned(&b, &code, "hello order", t(0)), MAX).await.unwrap();
            }
        }
        let all = r.canned_responses.list(&a, None, page(100, 0)).await.unwrap().items;
        assert_eq!(all.len(), 30);
        assert!(all.windows(2).all(|w| w[0].short_code < w[1].short_code), "seed {seed}: by short code");
        let fragments = [
            "hello", "HELLO", "über", "ÜB", "50%", "%", "_", "a_b", "é", "*", "order", "der-1", "\\", "i̇st", "ss", "ß", "hi1", "x-", "zzz",
        ];
        for fragment in fragments {
            let search = CannedSearch::new(fragment).unwrap();
            let expected: Vec<&CannedResponseId> = all.iter().filter(|c| search.matches(c)).map(|c| &c.id).collect();
            let whole = r.canned_responses.list(&a, Some(search.clone()), page(100, 0)).await.unwrap();
            let listed: Vec<&CannedResponseId> = whole.items.iter().map(|c| &c.id).collect();
            assert_eq!(listed, expected, "seed {seed}: {fragment:?}");
            assert_eq!(whole.total, expected.len() as u64, "seed {seed}: total of {fragment:?}");
            let mut paged = Vec::new();
            for offset in (0..expected.len().max(1)).step_by(4) {
                let p = r.canned_responses.list(&a, Some(search.clone()), page(4, offset as u64)).await.unwrap();
                assert_eq!(p.total, expected.len() as u64, "seed {seed}: page total of {fragment:?}");
                paged.extend(p.items.into_iter().map(|c| c.id));
            }
            assert_eq!(paged.iter().collect::<Vec<_>>(), expected, "seed {seed}: pages of {fragment:?}");
        }
    }
}
