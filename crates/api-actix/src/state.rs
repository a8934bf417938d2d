//! What every handler can reach: the domain services, wired to their adapters.

use std::sync::Arc;

use parley_domain::ports::{Clock, IdSource, Repositories};
use parley_domain::services::{ActivityService, CartService, CatalogService, ContactService, KeyService, TagService};

use crate::config::ApiConfig;

pub struct AppState {
    pub keys: KeyService,
    pub tags: TagService,
    pub contacts: ContactService,
    pub activities: ActivityService,
    pub catalog: CatalogService,
    pub carts: CartService,
    pub config: ApiConfig,
}

impl AppState {
    pub fn new(repos: Repositories, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        Self {
            keys: KeyService::new(repos.agents.clone(), repos.keys, clock.clone(), ids.clone()),
            catalog: CatalogService::new(repos.products.clone(), repos.agents, clock.clone()),
            carts: CartService::new(repos.carts, repos.products, clock.clone(), ids.clone()),
            config: ApiConfig::default(),
            tags: TagService::new(repos.tags.clone(), clock.clone(), ids.clone()),
            contacts: ContactService::new(repos.contacts.clone(), clock.clone(), ids.clone()),
            activities: ActivityService::new(repos.activities, repos.contacts, repos.tags, clock, ids),
        }
    }

    pub fn with_config(mut self, config: ApiConfig) -> Self {
        self.config = config;
        self
    }

    /// Production wiring: the system clock and the CSPRNG id source.
    pub fn with_system(repos: Repositories) -> Self {
        Self::new(repos, Arc::new(parley_adapters_system::SystemClock), Arc::new(parley_adapters_system::RandomIds))
    }
}
