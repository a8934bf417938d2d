//! Argon2id password hashing on tokio's blocking threads: each hash costs tens of milliseconds
//! and 19 MiB by design, which must not stall the threads that answer requests.

use std::sync::{Arc, OnceLock};

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use async_trait::async_trait;
use parley_domain::DomainError;
use parley_domain::model::{NewPassword, PasswordDigest};
use parley_domain::ports::PasswordHashing;

/// OWASP's Password Storage Cheat Sheet's first Argon2id configuration: 19 MiB of memory, 2
/// passes, 1 lane. A digest records its own parameters, so raising these later still verifies
/// older digests.
const MEMORY_KIB: u32 = 19 * 1024;
const PASSES: u32 = 2;
const LANES: u32 = 1;

fn argon2() -> Argon2<'static> {
    let params = Params::new(MEMORY_KIB, PASSES, LANES, None).expect("OWASP's parameters are valid Argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Argon2id with OWASP's parameters, as PHC strings (`$argon2id$v=19$m=19456,t=2,p=1$…`).
#[derive(Debug, Default, Clone)]
pub struct Argon2Passwords {
    /// The digest a sign-in without a member is checked against, made once.
    decoy: Arc<OnceLock<String>>,
}

impl Argon2Passwords {
    /// A hasher with OWASP's parameters.
    pub fn new() -> Self {
        Self::default()
    }
}

fn hash_now(password: &[u8]) -> Result<String, DomainError> {
    argon2().hash_password(password).map(|h| h.to_string()).map_err(|e| DomainError::internal(format!("password hashing failed: {e}")))
}

#[async_trait]
impl PasswordHashing for Argon2Passwords {
    async fn hash(&self, password: &NewPassword) -> Result<PasswordDigest, DomainError> {
        let password = password.expose().as_bytes().to_vec();
        let digest = tokio::task::spawn_blocking(move || hash_now(&password))
            .await
            .map_err(|e| DomainError::internal(format!("password hashing stopped: {e}")))??;
        Ok(PasswordDigest::from_stored(digest))
    }

    async fn verify<'a>(&self, password: &str, digest: Option<&'a PasswordDigest>) -> bool {
        let password = password.as_bytes().to_vec();
        let digest = digest.map(|d| d.as_str().to_string());
        let decoy = self.decoy.clone();
        tokio::task::spawn_blocking(move || {
            let (digest, real) = match digest {
                Some(d) => (d, true),
                None => (decoy.get_or_init(|| hash_now(b"no member has this email").unwrap_or_default()).clone(), false),
            };
            // Checked even for the decoy, so the answer takes as long either way.
            let matches = argon2().verify_password(&password, digest.as_str()).is_ok();
            real && matches
        })
        .await
        .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn digests_are_argon2id_with_owasp_parameters_and_verify_only_their_password() {
        let hasher = Argon2Passwords::new();
        let password = NewPassword::new("password", "correct horse battery staple").unwrap();
        let digest = hasher.hash(&password).await.unwrap();
        assert!(digest.as_str().starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{}", digest.as_str());
        assert!(hasher.verify("correct horse battery staple", Some(&digest)).await);
        assert!(!hasher.verify("correct horse battery stapler", Some(&digest)).await);
        assert!(!hasher.verify("anything", Some(&PasswordDigest::from_stored("not a digest".into()))).await);
        assert!(!hasher.verify("no member has this email", None).await, "the decoy never matches");
        let again = hasher.hash(&password).await.unwrap();
        assert_ne!(again, digest, "each hash has its own salt");
    }
}
