//! A resolver for reqwest that refuses names reaching non-public addresses.

use std::net::SocketAddr;

use parley_domain::model::check_resolved;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Resolves with the operating system, then applies the endpoint address rules to the answer.
#[derive(Debug, Default, Clone, Copy)]
pub struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_string();
            // The port is replaced by reqwest with the URL's; 0 here only completes the lookup.
            let addresses: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let ips: Vec<_> = addresses.iter().map(SocketAddr::ip).collect();
            check_resolved(&host, &ips, false).map_err(|e| format!("refused: {}", e.issue))?;
            let addrs: Addrs = Box::new(addresses.into_iter());
            Ok(addrs)
        })
    }
}
