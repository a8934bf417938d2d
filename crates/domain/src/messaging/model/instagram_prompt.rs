//! Which interactive prompts Instagram can carry: reply buttons and list options go out as quick
//! replies (at most 13, a title of at most 20 characters each, and nothing else), a URL button as
//! a button template (text of at most 640 characters, a label of at most 20). Instagram shows no
//! header or footer there: a text one is written into the text, on lines of its own, and counts
//! toward its length. What it cannot show at all is refused, never dropped.

use crate::FieldError;
use crate::model::interactive::{Action, Header, Interactive};

/// Quick replies Instagram takes in one message.
pub const INSTAGRAM_QUICK_REPLIES: usize = 13;
/// Characters of a quick reply's title (Instagram cuts longer ones).
pub const INSTAGRAM_QUICK_REPLY_TITLE: usize = 20;
/// Characters of a button template's text.
pub const INSTAGRAM_BUTTON_TEXT: usize = 640;
/// Characters of a message's text with quick replies.
pub const INSTAGRAM_TEXT: usize = 1000;

/// The characters of the text Instagram shows: header, body and footer, a blank line between.
fn shown_chars(prompt: &Interactive) -> usize {
    let header = match &prompt.header {
        Some(Header::Text { text }) => text.chars().count() + 2,
        _ => 0,
    };
    let footer = prompt.footer.as_ref().map_or(0, |f| f.text.chars().count() + 2);
    header + prompt.body.text.chars().count() + footer
}

fn too_long(field: &str, chars: usize, max: usize) -> Result<(), FieldError> {
    if chars > max {
        return Err(FieldError::new(field, format!("must be at most {max} characters on Instagram")));
    }
    Ok(())
}

/// `Ok` when Instagram can show `prompt` whole; otherwise the first part it cannot, named under
/// `interactive.`.
pub fn check_for_instagram(prompt: &Interactive) -> Result<(), FieldError> {
    if matches!(prompt.header, Some(Header::Image { .. })) {
        return Err(FieldError::new("interactive.header", "Instagram shows no image header on a prompt: send the image first"));
    }
    match &prompt.action {
        Action::Buttons { buttons } => {
            for (i, button) in buttons.iter().enumerate() {
                let field = format!("interactive.action.buttons[{i}].reply.title");
                too_long(&field, button.reply.title.chars().count(), INSTAGRAM_QUICK_REPLY_TITLE)?;
            }
            too_long("interactive.body.text", shown_chars(prompt), INSTAGRAM_TEXT)
        }
        Action::List { sections, .. } => {
            let rows = sections.iter().map(|s| s.rows.len()).sum::<usize>();
            if rows > INSTAGRAM_QUICK_REPLIES {
                return Err(FieldError::new(
                    "interactive.action.sections",
                    format!("Instagram shows at most {INSTAGRAM_QUICK_REPLIES} options"),
                ));
            }
            for (s, section) in sections.iter().enumerate() {
                for (r, row) in section.rows.iter().enumerate() {
                    let field = format!("interactive.action.sections[{s}].rows[{r}]");
                    if row.description.is_some() {
                        return Err(FieldError::new(
                            format!("{field}.description"),
                            "Instagram's options show a title only: leave the description out",
                        ));
                    }
                    too_long(&format!("{field}.title"), row.title.chars().count(), INSTAGRAM_QUICK_REPLY_TITLE)?;
                }
            }
            too_long("interactive.body.text", shown_chars(prompt), INSTAGRAM_TEXT)
        }
        Action::CtaUrl { .. } => too_long("interactive.body.text", shown_chars(prompt), INSTAGRAM_BUTTON_TEXT),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::InteractiveInput;
    use serde_json::json;

    fn prompt(value: serde_json::Value) -> Interactive {
        Interactive::new(serde_json::from_value::<InteractiveInput>(value).unwrap()).unwrap()
    }

    fn refused(value: serde_json::Value) -> String {
        check_for_instagram(&prompt(value)).unwrap_err().field
    }

    #[test]
    fn what_instagram_shows_whole_passes_and_the_rest_is_named() {
        let button = |title: &str| json!({"type": "reply", "reply": {"id": title, "title": title}});
        let buttons = json!({"type": "button", "header": {"type": "text", "text": "Hi"}, "body": {"text": "Pick"},
            "action": {"buttons": [button("Yes"), button("No")]}});
        assert_eq!(check_for_instagram(&prompt(buttons)), Ok(()));
        let image = json!({"type": "button", "header": {"type": "image", "image": {"link": "https://x.test/a.jpg"}},
            "body": {"text": "Pick"}, "action": {"buttons": [button("Yes")]}});
        assert_eq!(refused(image), "interactive.header");

        let rows = |title: &str, description: Option<&str>| {
            let mut row = json!({"id": "r1", "title": title});
            if let Some(d) = description {
                row["description"] = json!(d);
            }
            json!({"type": "list", "body": {"text": "Pick"}, "action": {"button": "Open", "sections": [{"rows": [row]}]}})
        };
        assert_eq!(check_for_instagram(&prompt(rows("Twenty characters ok", None))), Ok(()));
        assert_eq!(refused(rows("Twenty-one characters", None)), "interactive.action.sections[0].rows[0].title");
        assert_eq!(refused(rows("Short", Some("a line more"))), "interactive.action.sections[0].rows[0].description");

        let cta = |body: &str| json!({"type": "cta_url", "body": {"text": body}, "action": {"name": "cta_url", "parameters": {"display_text": "Open", "url": "https://x.test"}}});
        assert_eq!(check_for_instagram(&prompt(cta(&"é".repeat(640)))), Ok(()), "characters, not bytes");
        assert_eq!(refused(cta(&"a".repeat(641))), "interactive.body.text");
    }
}
