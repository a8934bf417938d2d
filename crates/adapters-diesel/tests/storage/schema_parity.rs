//! The two migration folders say the same thing: after every migration, SQLite and PostgreSQL
//! hold the same tables, columns and named indexes, but for the differences listed here, each
//! with its reason. A change written in one dialect and forgotten (or misspelt) in the other fails
//! here, whatever its data migrations do.

use parley_adapters_diesel::testing::TestDb;

/// What only SQLite has, and why.
const ONLY_SQLITE: [&str; 0] = [];

/// What only PostgreSQL has, and why.
const ONLY_POSTGRES: [&str; 1] = [
    // A product's integer key: SQLite's is the table's `INTEGER PRIMARY KEY` (its rowid, an index
    // by nature), PostgreSQL's an identity column with its own unique index
    // (`category_product_keys`).
    "index products_pk on products(pk)",
];

#[tokio::test(flavor = "multi_thread")]
async fn both_dialects_build_the_same_tables_columns_and_indexes() {
    let sqlite = TestDb::sqlite().await.store.schema_outline().await.unwrap();
    let postgres = TestDb::postgres().await.store.schema_outline().await.unwrap();
    assert!(sqlite.len() > 100, "the outline reads the schema: {sqlite:?}");
    let only_sqlite: Vec<&str> = sqlite.iter().filter(|x| !postgres.contains(x)).map(String::as_str).collect();
    let only_postgres: Vec<&str> = postgres.iter().filter(|x| !sqlite.contains(x)).map(String::as_str).collect();
    assert_eq!(only_sqlite, ONLY_SQLITE, "only in SQLite");
    assert_eq!(only_postgres, ONLY_POSTGRES, "only in PostgreSQL");
}
