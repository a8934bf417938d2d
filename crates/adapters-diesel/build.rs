//! `embed_migrations!` reads the migration folders when this crate compiles, but cargo only
//! knows about the files it included: a new migration folder alone would not rebuild the crate,
//! and the binary would run without it.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
