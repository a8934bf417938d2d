//! The one TLS client configuration for IMAP: rustls with ring and the webpki roots (the same
//! stack lettre uses for SMTP), so no OpenSSL and no dependence on a process-wide provider.

use std::sync::Arc;

use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};

pub fn connector() -> Result<TlsConnector, String> {
    let roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS configuration: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}
