//! The clock, the id source, the address resolver and password hashing, backed by the operating
//! system.

mod passwords;

pub use passwords::Argon2Passwords;

use chrono::{DurationRound, TimeDelta, Utc};
use parley_domain::model::{IdKind, Timestamp};
use parley_domain::ports::{AddressResolver, Clock, IdSource};
use rand::Rng;
use rand::distr::Alphanumeric;
use std::sync::atomic::{AtomicU64, Ordering};

/// Wall-clock UTC time, truncated to milliseconds (the precision of the wire format and storage).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Utc::now().duration_trunc(TimeDelta::milliseconds(1)).expect("millisecond truncation cannot overflow")
    }
}

/// Random ids from the thread-local CSPRNG (ChaCha, seeded from the OS).
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomIds;

/// 24 base-62 characters: ~143 bits, unguessable.
const ID_RANDOM_LEN: usize = 24;

/// A message id's ordered part: 12 base-36 digits of [`next_in_order`], then 12 random base-62
/// characters (~71 bits) to keep it unguessable, 24 in all like every other id.
const ORDERED_LEN: usize = 12;

/// The last value [`next_in_order`] gave, in this process.
static LAST_IN_ORDER: AtomicU64 = AtomicU64::new(0);

/// Milliseconds since 1970 shifted left 16 bits, plus a counter for ids made in the same
/// millisecond: always greater than the previous one in this process, even if the clock steps
/// back, so ids made one after the other sort in the order they were made.
fn next_in_order() -> u64 {
    let now = u64::try_from(Utc::now().timestamp_millis()).unwrap_or(0) << 16;
    let previous = LAST_IN_ORDER
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| Some(now.max(last + 1)))
        .expect("the update always returns Some");
    now.max(previous + 1)
}

/// Fixed-width lowercase base 36: digits before letters, so byte order, `C` collation and
/// natural-language collations all sort these strings the same way.
fn base36(mut value: u64, width: usize) -> String {
    let mut out = vec![b'0'; width];
    for slot in out.iter_mut().rev() {
        *slot = b"0123456789abcdefghijklmnopqrstuvwxyz"[(value % 36) as usize];
        value /= 36;
    }
    String::from_utf8(out).expect("ASCII digits")
}

impl IdSource for RandomIds {
    fn new_id(&self, kind: IdKind) -> String {
        match kind {
            // Messages with the same `created_at` are listed in the order they were stored, which
            // their ids carry (the timelines order by `created_at`, then `id`).
            IdKind::Message => {
                format!("{}_{}{}", kind.prefix(), base36(next_in_order(), ORDERED_LEN), self.secret(ID_RANDOM_LEN - ORDERED_LEN))
            }
            _ => format!("{}_{}", kind.prefix(), self.secret(ID_RANDOM_LEN)),
        }
    }

    fn secret(&self, len: usize) -> String {
        rand::rng().sample_iter(&Alphanumeric).take(len).map(char::from).collect()
    }

    fn code(&self, alphabet: &'static [u8], len: usize) -> String {
        let mut rng = rand::rng();
        (0..len).map(|_| char::from(alphabet[rng.random_range(0..alphabet.len())])).collect()
    }

    fn bytes(&self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        rand::rng().fill(&mut out[..]);
        out
    }

    fn unit(&self) -> f64 {
        rand::rng().random::<f64>()
    }
}

/// The operating system's resolver (`getaddrinfo`, on tokio's blocking pool).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemResolver;

#[async_trait::async_trait]
impl AddressResolver for SystemResolver {
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<std::net::IpAddr>, String> {
        let addresses = tokio::net::lookup_host((host, port)).await.map_err(|e| format!("{host} does not resolve: {e}"))?;
        let mut ips: Vec<std::net::IpAddr> = addresses.map(|a| a.ip()).collect();
        ips.sort();
        ips.dedup();
        Ok(ips)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_carry_their_prefix_and_do_not_repeat() {
        let ids: HashSet<String> = (0..10_000).map(|_| RandomIds.new_id(IdKind::Tag)).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(ids.iter().all(|id| id.starts_with("tag_") && id.len() == 4 + ID_RANDOM_LEN));
    }

    #[test]
    fn message_ids_sort_in_the_order_they_were_made() {
        let ids: Vec<String> = (0..100_000).map(|_| RandomIds.new_id(IdKind::Message)).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "strictly increasing, even within a millisecond");
        assert!(ids.iter().all(|id| id.starts_with("msg_") && id.len() == 4 + ID_RANDOM_LEN));
        assert!(ids.iter().all(|id| id[4..4 + ORDERED_LEN].bytes().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())));
        assert_eq!(base36(u64::MAX >> 2, ORDERED_LEN).len(), ORDERED_LEN, "wide enough for 2^62");
        assert_eq!(base36(35, 3), "00z");
    }

    #[test]
    fn codes_use_only_the_alphabet_and_all_of_it() {
        let alphabet: &'static [u8] = b"abc";
        let drawn: HashSet<char> = (0..200).flat_map(|_| RandomIds.code(alphabet, 7).chars().collect::<Vec<_>>()).collect();
        assert_eq!(drawn, HashSet::from(['a', 'b', 'c']));
    }

    #[test]
    fn clock_has_millisecond_precision() {
        assert_eq!(SystemClock.now().timestamp_subsec_nanos() % 1_000_000, 0);
    }
    #[tokio::test]
    async fn localhost_resolves_to_loopback_and_an_invalid_name_to_an_error() {
        let ips = SystemResolver.resolve("localhost", 443).await.unwrap();
        assert!(!ips.is_empty() && ips.iter().all(|ip| ip.is_loopback()), "{ips:?}");
        assert!(SystemResolver.resolve("name.invalid", 443).await.is_err(), ".invalid never resolves (RFC 6761)");
    }
}
