//! Round robin: who takes the next conversation. The member with the fewest open
//! conversations, among those below their `max_open`; between equally busy members, the one
//! round robin served longest ago (never first), then the oldest member.

use crate::model::{MaxOpen, MemberId, Timestamp};

/// One member as round robin weighs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberLoad {
    /// The member.
    pub member: MemberId,
    /// The most open conversations it takes; `None`: no limit.
    pub max_open: Option<MaxOpen>,
    /// The open conversations assigned to it now.
    pub open: u64,
    /// When round robin last gave it one; `None`: never.
    pub last_assigned_at: Option<Timestamp>,
    /// When it joined: the last tie-break, so the choice never depends on storage order.
    pub created_at: Timestamp,
}

impl MemberLoad {
    /// Whether it may take one more.
    pub fn has_room(&self) -> bool {
        self.max_open.is_none_or(|max| self.open < u64::from(max.get()))
    }
}

/// The member who takes the next conversation, or `None` when every member is full (or there
/// are none).
pub fn next_in_turn(loads: &[MemberLoad]) -> Option<&MemberId> {
    loads.iter().filter(|l| l.has_room()).min_by(|a, b| turn(a).cmp(&turn(b))).map(|l| &l.member)
}

/// The order members are served in: fewest open, then longest since served (never before any
/// time), then oldest, then id.
fn turn(l: &MemberLoad) -> (u64, Option<Timestamp>, Timestamp, &MemberId) {
    (l.open, l.last_assigned_at, l.created_at, &l.member)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(s, 0).unwrap()
    }

    fn load(id: &str, open: u64, max: Option<i64>, last: Option<i64>, joined: i64) -> MemberLoad {
        MemberLoad {
            member: MemberId::new(id),
            max_open: max.map(|m| MaxOpen::new(m).unwrap()),
            open,
            last_assigned_at: last.map(at),
            created_at: at(joined),
        }
    }

    fn next(loads: &[MemberLoad]) -> Option<&str> {
        next_in_turn(loads).map(MemberId::as_str)
    }

    #[test]
    fn the_fewest_open_take_the_next() {
        assert_eq!(
            next(&[load("usr_a", 3, None, None, 1), load("usr_b", 1, None, Some(9), 2), load("usr_c", 2, None, None, 3)]),
            Some("usr_b")
        );
    }

    #[test]
    fn ties_go_to_whom_round_robin_served_longest_ago_never_first_then_the_oldest() {
        let never = [load("usr_a", 1, None, Some(5), 1), load("usr_b", 1, None, None, 3), load("usr_c", 1, None, None, 2)];
        assert_eq!(next(&never), Some("usr_c"), "never served, and older than usr_b");
        let served = [load("usr_a", 1, None, Some(5), 1), load("usr_b", 1, None, Some(4), 2)];
        assert_eq!(next(&served), Some("usr_b"));
    }

    #[test]
    fn a_member_at_max_open_is_skipped_and_zero_takes_none() {
        let loads = [load("usr_a", 2, Some(2), None, 1), load("usr_b", 5, None, None, 2), load("usr_c", 0, Some(0), None, 0)];
        assert_eq!(next(&loads), Some("usr_b"));
        assert_eq!(next(&[load("usr_a", 2, Some(2), None, 1)]), None, "everyone full");
        assert_eq!(next(&[]), None, "nobody");
    }

    #[test]
    fn max_open_is_a_whole_number_up_to_ten_thousand() {
        assert!(MaxOpen::new(0).is_ok() && MaxOpen::new(10_000).is_ok());
        for bad in [-1, 10_001, i64::MAX] {
            assert_eq!(MaxOpen::new(bad).unwrap_err().field, "max_open", "{bad}");
        }
        assert_eq!(MaxOpen::from_json(&serde_json::json!(3.0)).map(MaxOpen::get), Ok(3), "a whole number written with a point");
        for bad in [serde_json::json!(2.5), serde_json::json!("3"), serde_json::json!(true)] {
            assert!(MaxOpen::from_json(&bad).is_err(), "{bad}");
        }
    }
}
