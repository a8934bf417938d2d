//! Holds both storage backends to the one port contract in `parley_domain::conformance`.

use parley_adapters_diesel::testing::TestDb;
use parley_domain::ports::Repositories;

async fn fresh(backend: &str) -> (Repositories, TestDb) {
    let db = TestDb::of(backend).await;
    (db.store.repositories(), db)
}

mod sqlite {
    parley_domain::storage_conformance!(super::fresh("sqlite"));
}

mod postgres {
    parley_domain::storage_conformance!(super::fresh("postgres"));
}
