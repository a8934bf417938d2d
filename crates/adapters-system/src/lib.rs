//! The clock, the id source and the address resolver, backed by the operating system.

use chrono::{DurationRound, TimeDelta, Utc};
use parley_domain::model::{IdKind, Timestamp};
use parley_domain::ports::{AddressResolver, Clock, IdSource};
use rand::Rng;
use rand::distr::Alphanumeric;

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

impl IdSource for RandomIds {
    fn new_id(&self, kind: IdKind) -> String {
        format!("{}_{}", kind.prefix(), self.secret(ID_RANDOM_LEN))
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
