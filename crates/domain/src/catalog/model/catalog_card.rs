//! Product and cart messages: a card built from the agent's own catalog or cart, kept on the
//! message as it was sent, and the form it goes out in (a URL button to the storefront when the
//! storefront is served over https, else the link in the text).

use serde::{Deserialize, Serialize};

use crate::model::interactive::{Action, CtaUrl, Header, Interactive, InteractiveKind, Link, Text};
use crate::model::money::{Decimal, json_number};
use crate::model::{Cart, Media, MessageContent, Product, VariantRecord};

/// A product as a product message showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProductCard {
    /// The product's `_id`.
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The chosen variant's id; `None` for the product itself.
    pub variant_id: Option<String>,
    /// The product's title, with the variant's after a dash.
    pub title: String,
    /// The variant's price, else the base price, rounded to the currency's minor unit.
    #[serde(with = "json_number")]
    pub price: Decimal,
    /// The price's ISO 4217 code.
    pub currency: String,
    /// The product's first image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// `{storefront_url}/p/<id>`, when the server has a storefront.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// What a person reads: the title and the price.
    pub text: String,
}

/// A cart as a cart message showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CartCard {
    /// The cart's code.
    pub code: String,
    /// One per cart item, in the cart's order.
    pub lines: Vec<CartCardLine>,
    /// Null only for a cart made before carts held one currency.
    pub currency: Option<String>,
    #[serde(default, with = "json_number::option")]
    /// The exact sum of the line totals; null exactly when `currency` is.
    pub total: Option<Decimal>,
    /// `{storefront_url}/c/<code>`, when the server has a storefront.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// What a person reads: one line per item, then the total.
    pub text: String,
}

/// One item of a cart as a cart message showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CartCardLine {
    /// The product's title, with the variant's after a dash.
    pub title: String,
    /// How many.
    pub qty: u8,
    #[serde(with = "json_number")]
    /// The unit price (rounded to the currency's minor unit) times `qty`, exact.
    pub line_total: Decimal,
}

fn titled(product: &Product, variant: Option<&VariantRecord>) -> String {
    match variant {
        Some(v) => format!("{} – {}", product.title, v.title),
        None => product.title.clone(),
    }
}

fn amount(value: Decimal, currency: &str) -> String {
    format!("{} {currency}", crate::model::money::to_json_number(value))
}

/// At most `max` characters: the platform's limit for the text, cut with an ellipsis.
fn fit(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// A link the platform may put on a button or fetch a picture from: https only.
fn https(url: Option<&String>) -> Option<&String> {
    url.filter(|u| u.starts_with("https://"))
}

/// A card with a button that opens `url`: the form both cards go out in.
fn link_button(image: Option<String>, text: &str, label: &str, url: &str) -> MessageContent {
    MessageContent::Prompt(Interactive {
        kind: InteractiveKind::CtaUrl,
        header: image.map(|link| Header::Image { image: Link { link } }),
        body: Text { text: fit(text.to_string(), crate::model::interactive::limits::BODY) },
        footer: None,
        action: Action::CtaUrl { name: "cta_url".into(), parameters: CtaUrl { display_text: label.into(), url: url.to_string() } },
    })
}

/// The text with the link, when there is one, on a line of its own.
fn written_out(text: &str, url: Option<&str>) -> String {
    match url {
        Some(url) => format!("{text}\n{url}"),
        None => text.to_string(),
    }
}

impl ProductCard {
    /// The card of `product` (active, the agent's) and `variant` (one of its variants).
    pub fn new(product: &Product, variant: Option<&VariantRecord>, storefront: Option<&str>) -> Self {
        let price = variant.map_or(product.base_price.value(), |v| v.price);
        let image = product.media.iter().filter(|m| m.media_type == "image").min_by_key(|m| m.position.unwrap_or(u32::MAX));
        let (title, price) = (titled(product, variant), product.currency.round(price));
        let text = format!("{title}\n{}", amount(price, product.currency.as_str()));
        Self {
            id: product.id.as_str().to_string(),
            variant_id: variant.map(|v| v.id.clone()),
            title,
            price,
            currency: product.currency.as_str().to_string(),
            image: image.map(|m| m.url.clone()),
            url: storefront.map(|base| format!("{base}/p/{}", product.id.as_str())),
            text,
        }
    }

    /// The message that goes out: a URL button to the product (its picture as header) when the
    /// storefront is https; else its picture captioned, or text, with the link written out.
    pub fn shown(&self) -> MessageContent {
        let https_image = https(self.image.as_ref());
        if let Some(url) = https(self.url.as_ref()) {
            return link_button(https_image.cloned(), &self.text, "View product", url);
        }
        let text = written_out(&self.text, self.url.as_deref());
        match https_image {
            Some(link) => MessageContent::Image(Media { link: Some(link.clone()), caption: Some(fit(text, 1024)), ..Media::default() }),
            None => MessageContent::Text { body: fit(text, crate::model::reply::MAX_BODY_CHARS) },
        }
    }
}

impl CartCard {
    /// The card of `cart`, with its link when the server has a storefront (`storefront` is its
    /// base URL).
    pub fn new(cart: &Cart, storefront: Option<&str>) -> Self {
        let total = cart.total();
        let lines: Vec<CartCardLine> = cart
            .items
            .iter()
            .map(|i| CartCardLine { title: titled(&i.product, i.variant.as_ref()), qty: i.qty, line_total: i.line_total() })
            .collect();
        let currency = total.as_ref().map(|t| t.currency.as_str().to_string());
        let shown_in = currency.as_deref().unwrap_or("");
        let mut text = String::from("Your cart:");
        for line in &lines {
            text.push_str(&format!("\n{} × {}: {}", line.qty, line.title, amount(line.line_total, shown_in)));
        }
        if let Some(total) = &total {
            text.push_str(&format!("\nTotal: {}", amount(total.total, shown_in)));
        }
        Self {
            code: cart.code.as_str().to_string(),
            lines,
            currency,
            total: total.map(|t| t.total),
            url: storefront.map(|base| format!("{base}/c/{}", cart.code.as_str())),
            text,
        }
    }

    /// The message that goes out: the lines and total with a URL button to the cart when the
    /// storefront is https; else text with the link written out.
    pub fn shown(&self) -> MessageContent {
        if let Some(url) = https(self.url.as_ref()) {
            return link_button(None, &self.text, "View cart", url);
        }
        MessageContent::Text { body: fit(written_out(&self.text, self.url.as_deref()), crate::model::reply::MAX_BODY_CHARS) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentId, CartCode, CartItem, ProductRecord};
    use serde_json::json;

    fn bottle() -> Product {
        let r: ProductRecord =
            serde_json::from_value(json!({"_id": "bottle", "kind": "product", "title": "Steel bottle", "currency": "USD",
            "base_price": 29, "media": [{"url": "https://cdn.test/b1.jpg", "type": "image", "position": 1},
                {"url": "https://cdn.test/b0.jpg", "type": "image", "position": 0}],
            "variants": [{"id": "750", "title": "750 ml", "price": 34.5}]}))
            .unwrap();
        Product::from_record(&AgentId::new("a"), r, chrono::Utc::now(), None).unwrap()
    }

    #[test]
    fn a_product_card_shows_the_variant_price_and_first_picture_with_a_button() {
        let p = bottle();
        let card = ProductCard::new(&p, Some(&p.variants[0]), Some("https://shop.test"));
        assert_eq!((card.title.as_str(), card.price.to_string().as_str()), ("Steel bottle – 750 ml", "34.5"));
        let MessageContent::Prompt(shown) = card.shown() else { panic!("a button") };
        assert_eq!(
            serde_json::to_value(&shown).unwrap(),
            json!({"type": "cta_url", "header": {"type": "image", "image": {"link": "https://cdn.test/b0.jpg"}},
                "body": {"text": "Steel bottle – 750 ml\n34.5 USD"},
                "action": {"name": "cta_url", "parameters": {"display_text": "View product", "url": "https://shop.test/p/bottle"}}})
        );
        let plain = ProductCard::new(&p, None, Some("http://localhost:3000"));
        let MessageContent::Image(m) = plain.shown() else { panic!("a captioned picture") };
        assert_eq!(m.caption.as_deref(), Some("Steel bottle\n29 USD\nhttp://localhost:3000/p/bottle"));
    }

    #[test]
    fn a_cart_card_lists_its_lines_and_total() {
        let p = bottle();
        let at = chrono::Utc::now();
        let cart = Cart {
            code: CartCode::parse("Ab3kP9z").unwrap(),
            agent_id: AgentId::new("a"),
            items: vec![
                CartItem { product: p.clone(), variant: Some(p.variants[0].clone()), qty: 2 },
                CartItem { product: p, variant: None, qty: 1 },
            ],
            created_at: at,
            expires_at: at,
        };
        let card = CartCard::new(&cart, None);
        assert_eq!(card.text.clone(), "Your cart:\n2 × Steel bottle – 750 ml: 69 USD\n1 × Steel bottle: 29 USD\nTotal: 98 USD");
        assert_eq!(card.shown(), MessageContent::Text { body: card.text.clone() });
        let with_link = CartCard::new(&cart, Some("https://shop.test"));
        let MessageContent::Prompt(shown) = with_link.shown() else { panic!("a button") };
        assert_eq!(serde_json::to_value(&shown).unwrap()["action"]["parameters"]["url"], "https://shop.test/c/Ab3kP9z");
        let stored = serde_json::to_value(&with_link).unwrap();
        assert_eq!(serde_json::from_value::<CartCard>(stored).unwrap(), with_link, "kept as sent");
    }
}
