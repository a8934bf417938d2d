//! The product catalog (imported in bulk, searched by meaning) and carts that hand a shopper to the chat: the entities and value objects.

pub mod cart;
pub mod catalog_card;
pub mod product;
pub mod product_document;

pub use cart::*;
pub use catalog_card::{CartCard, CartCardLine, ProductCard};
pub use product::*;
pub use product_document::*;
