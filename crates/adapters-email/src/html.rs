//! The HTML part of a rich reply ([`EmailRich`]): reply buttons and list rows as links that
//! open a reply saying the option's title (RFC 6068 `mailto:`), a link button as a link, a
//! product or a cart as a card with its picture, lines, total and storefront link. Inline
//! styles only (mail clients drop `<style>`), every text escaped, only https links and pictures.

use parley_domain::model::interactive::{Action, Header, Interactive};
use parley_domain::model::{CartCard, Currency, Decimal, EmailRich, ProductCard};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Where an option's link sends the contact's answer: the line's address, under the thread's
/// subject.
pub struct AnswerTo<'a> {
    pub address: &'a str,
    pub subject: &'a str,
}

/// The whole HTML document of `rich`.
pub fn rich_html(rich: &EmailRich, answer: &AnswerTo<'_>) -> String {
    let body = match rich {
        EmailRich::Prompt(prompt) => prompt_html(prompt, answer),
        EmailRich::Product(card) => product_html(card),
        EmailRich::Cart(card) => cart_html(card),
    };
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"></head>\
         <body style=\"font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.45;color:#1c2330\">{body}</body></html>"
    )
}

/// An amount with its currency's minor units (`24.90 EUR`, `1200 JPY`).
fn amount(value: Decimal, currency: &str) -> String {
    let places = Currency::new(currency).map_or(2, |c| c.minor_units()) as usize;
    format!("{value:.places$} {}", text(currency))
}

/// `text` with HTML's special characters escaped, and line breaks kept.
fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' => out.push_str("<br>"),
            c => out.push(c),
        }
    }
    out
}

fn paragraph(body: &str) -> String {
    format!("<p style=\"margin:0 0 12px\">{}</p>", text(body))
}

/// An https URL, escaped for an attribute; `None` for any other scheme.
fn https(url: &str) -> Option<String> {
    url.get(..8).filter(|scheme| scheme.eq_ignore_ascii_case("https://")).map(|_| text(url))
}

fn button(href: &str, label: &str) -> String {
    format!(
        "<a href=\"{href}\" style=\"display:inline-block;margin:0 8px 8px 0;padding:8px 16px;border:1px solid #0b6bcb;\
         border-radius:6px;color:#0b6bcb;text-decoration:none\">{}</a>",
        text(label)
    )
}

/// RFC 6068 escapes everything but unreserved characters in a `mailto:` field.
const MAILTO: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

fn answer_link(answer: &AnswerTo<'_>, option: &str) -> String {
    let href = format!(
        "mailto:{}?subject={}&body={}",
        utf8_percent_encode(answer.address, MAILTO).to_string().replace("%40", "@"),
        utf8_percent_encode(answer.subject, MAILTO),
        utf8_percent_encode(option, MAILTO)
    );
    button(&text(&href), option)
}

fn prompt_html(prompt: &Interactive, answer: &AnswerTo<'_>) -> String {
    let mut html = String::new();
    match &prompt.header {
        Some(Header::Text { text: header }) => {
            html.push_str(&format!("<p style=\"margin:0 0 12px;font-weight:bold\">{}</p>", text(header)))
        }
        Some(Header::Image { image }) => {
            if let Some(src) = https(&image.link) {
                html.push_str(&format!("<p style=\"margin:0 0 12px\"><img src=\"{src}\" alt=\"\" style=\"max-width:100%\"></p>"));
            }
        }
        None => {}
    }
    html.push_str(&paragraph(&prompt.body.text));
    match &prompt.action {
        Action::Buttons { buttons } => {
            html.push_str("<p style=\"margin:0 0 4px\">");
            for b in buttons {
                html.push_str(&answer_link(answer, &b.reply.title));
            }
            html.push_str("</p>");
        }
        Action::List { button: label, sections } => {
            html.push_str(&format!("<p style=\"margin:0 0 8px;font-weight:bold\">{}</p>", text(label)));
            for section in sections {
                if let Some(title) = &section.title {
                    html.push_str(&format!("<p style=\"margin:8px 0 4px;color:#5b6474\">{}</p>", text(title)));
                }
                for row in &section.rows {
                    html.push_str("<p style=\"margin:0 0 4px\">");
                    html.push_str(&answer_link(answer, &row.title));
                    if let Some(description) = &row.description {
                        html.push_str(&format!("<span style=\"color:#5b6474\">{}</span>", text(description)));
                    }
                    html.push_str("</p>");
                }
            }
        }
        Action::CtaUrl { parameters, .. } => {
            if let Some(href) = https(&parameters.url) {
                html.push_str(&format!("<p style=\"margin:0 0 4px\">{}</p>", button(&href, &parameters.display_text)));
            }
        }
    }
    if let Some(footer) = &prompt.footer {
        html.push_str(&format!("<p style=\"margin:12px 0 0;color:#5b6474;font-size:13px\">{}</p>", text(&footer.text)));
    }
    html
}

fn product_html(card: &ProductCard) -> String {
    let mut html = String::new();
    if let Some(src) = card.image.as_deref().and_then(https) {
        html.push_str(&format!(
            "<p style=\"margin:0 0 12px\"><img src=\"{src}\" alt=\"{}\" style=\"max-width:320px;width:100%\"></p>",
            text(&card.title)
        ));
    }
    html.push_str(&format!("<p style=\"margin:0 0 4px;font-weight:bold\">{}</p>", text(&card.title)));
    html.push_str(&format!("<p style=\"margin:0 0 12px\">{}</p>", amount(card.price, &card.currency)));
    if let Some(href) = card.url.as_deref().and_then(https) {
        html.push_str(&button(&href, "View product"));
    }
    html
}

fn cart_html(card: &CartCard) -> String {
    let currency = card.currency.as_deref().unwrap_or("");
    let mut html = format!("<p style=\"margin:0 0 8px;font-weight:bold\">Cart {}</p>", text(&card.code));
    html.push_str("<table style=\"border-collapse:collapse;margin:0 0 12px\">");
    for line in &card.lines {
        html.push_str(&format!(
            "<tr><td style=\"padding:2px 12px 2px 0\">{} × {}</td><td style=\"padding:2px 0;text-align:right\">{}</td></tr>",
            line.qty,
            text(&line.title),
            amount(line.line_total, currency)
        ));
    }
    if let Some(total) = card.total {
        html.push_str(&format!(
            "<tr><td style=\"padding:6px 12px 2px 0;border-top:1px solid #d9dde3;font-weight:bold\">Total</td>\
             <td style=\"padding:6px 0 2px;border-top:1px solid #d9dde3;text-align:right;font-weight:bold\">{}</td></tr>",
            amount(total, currency)
        ));
    }
    html.push_str("</table>");
    if let Some(href) = card.url.as_deref().and_then(https) {
        html.push_str(&button(&href, "View cart"));
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use parley_domain::model::interactive::{CtaUrl, InteractiveKind, ReplyButton, Row, Text};
    use parley_domain::model::{CartCardLine, Decimal};

    const ANSWER: AnswerTo<'static> = AnswerTo { address: "shop@example.com", subject: "Re: Order 42" };

    fn buttons(titles: &[&str], body: &str) -> EmailRich {
        EmailRich::Prompt(Interactive {
            kind: InteractiveKind::Button,
            header: None,
            body: Text { text: body.into() },
            footer: None,
            action: Action::Buttons {
                buttons: titles
                    .iter()
                    .map(|t| ReplyButton {
                        kind: "reply".into(),
                        reply: Row { id: t.to_string(), title: t.to_string(), description: None },
                    })
                    .collect(),
            },
        })
    }

    #[test]
    fn each_option_opens_a_reply_saying_it() {
        let html = rich_html(&buttons(&["Pick up", "Courier"], "How should we ship it?"), &ANSWER);
        assert!(html.contains("How should we ship it?"));
        assert!(html.contains("href=\"mailto:shop@example.com?subject=Re%3A%20Order%2042&amp;body=Pick%20up\""), "{html}");
        assert!(html.contains(">Courier</a>"));
    }

    #[test]
    fn markup_in_any_text_is_escaped() {
        let html = rich_html(&buttons(&["<b>x</b>"], "<script>alert(1)</script>\nnext"), &ANSWER);
        assert!(!html.contains("<script>") && !html.contains("<b>"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;<br>next"));
    }

    #[test]
    fn only_https_links_and_pictures_are_drawn() {
        let cta = |url: &str| {
            EmailRich::Prompt(Interactive {
                kind: InteractiveKind::CtaUrl,
                header: None,
                body: Text { text: "Track it".into() },
                footer: None,
                action: Action::CtaUrl { name: "cta_url".into(), parameters: CtaUrl { display_text: "Track".into(), url: url.into() } },
            })
        };
        assert!(rich_html(&cta("https://t.example/1?a=1&b=2"), &ANSWER).contains("href=\"https://t.example/1?a=1&amp;b=2\""));
        assert!(!rich_html(&cta("javascript:alert(1)"), &ANSWER).contains("javascript:"));
    }

    #[test]
    fn a_cart_shows_its_lines_and_exact_total() {
        let cart = EmailRich::Cart(CartCard {
            code: "AbC1234".into(),
            lines: vec![
                CartCardLine { title: "Bottle".into(), qty: 2, line_total: Decimal::new(2490, 2) },
                CartCardLine { title: "Cap".into(), qty: 1, line_total: Decimal::new(300, 2) },
            ],
            currency: Some("EUR".into()),
            total: Some(Decimal::new(2790, 2)),
            url: Some("https://shop.example/c/AbC1234".into()),
            text: String::new(),
        });
        let html = rich_html(&cart, &ANSWER);
        for part in
            ["2 × Bottle", "24.90 EUR", "1 × Cap", "Total", "27.90 EUR", "href=\"https://shop.example/c/AbC1234\"", ">View cart</a>"]
        {
            assert!(html.contains(part), "{part} in {html}");
        }
    }
}
