//! An address with its display name: the one shape used for senders and recipients.

/// A mailbox: `"Name" <address>`. Addresses this crate produces are lowercased (they are the
/// email contact's channel id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mailbox {
    /// The display name, decoded, if there was a non-empty one.
    pub name: Option<String>,
    /// The address, `local@domain`.
    pub address: String,
}

impl Mailbox {
    /// A mailbox without a display name.
    pub fn new(address: impl Into<String>) -> Self {
        Self { name: None, address: address.into() }
    }

    /// A mailbox with a display name.
    pub fn named(name: impl Into<String>, address: impl Into<String>) -> Self {
        Self { name: Some(name.into()), address: address.into() }
    }

    /// The part after the last `@`, if any: the line's domain for fresh Message-IDs.
    pub fn domain(&self) -> Option<&str> {
        self.address.rsplit_once('@').map(|(_, domain)| domain).filter(|domain| !domain.is_empty())
    }
}
