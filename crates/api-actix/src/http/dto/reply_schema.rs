//! The reply body as the OpenAPI document states it: one shape per message `type`, each with
//! the object that type names and no other, so generated clients and fuzzers build valid
//! replies. Documentation only: the body is read by [`SendReply`](super::SendReply), whose
//! lenient shape lets the domain name every wrong field at once (`image.caption is not allowed
//! for type audio`) instead of serde stopping at the first.

use std::borrow::Cow;

use serde::Deserialize;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AdditionalProperties, Schema};
use utoipa::{PartialSchema, ToSchema};

/// The `SendReply` component: [`ReplyShapes`] with each shape closed to other fields, as the
/// server is (a `text` reply with an `image` is a 400), and titled, so generated clients name
/// each shape's class (`SendReplyText`, not `SendReplyType0`). utoipa's derive does neither for
/// a tagged enum, so this does.
pub struct ReplyBody;

/// The shapes' titles, in [`ReplyShapes`]' order. (Not the `Reply…` component names: a title
/// equal to a component made a generator drop the operation.)
const SHAPE_TITLES: [&str; 11] = [
    "SendReplyText",
    "SendReplyImage",
    "SendReplyVideo",
    "SendReplyAudio",
    "SendReplyDocument",
    "SendReplySticker",
    "SendReplyInteractive",
    "SendReplyLocation",
    "SendReplyReaction",
    "SendReplyProduct",
    "SendReplyCart",
];

/// `schema`'s `oneOf` shapes closed to other fields and titled `titles`, in order.
fn closed_and_titled(mut schema: RefOr<Schema>, titles: &[&str]) -> RefOr<Schema> {
    if let RefOr::T(Schema::OneOf(shapes)) = &mut schema {
        assert_eq!(shapes.items.len(), titles.len(), "a title for every shape");
        for (shape, title) in shapes.items.iter_mut().zip(titles) {
            if let RefOr::T(Schema::Object(object)) = shape {
                object.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
                object.title = Some((*title).into());
            }
        }
    }
    schema
}

impl PartialSchema for ReplyBody {
    fn schema() -> RefOr<Schema> {
        closed_and_titled(ReplyShapes::schema(), &SHAPE_TITLES)
    }
}

/// The `ReplyInteractive` component: [`InteractiveShape`] closed and titled per `type`, for the
/// same reasons as [`ReplyBody`].
struct InteractiveBody;

impl PartialSchema for InteractiveBody {
    fn schema() -> RefOr<Schema> {
        closed_and_titled(InteractiveShape::schema(), &["InteractiveButton", "InteractiveList", "InteractiveCtaUrl"])
    }
}

impl ToSchema for InteractiveBody {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ReplyInteractive")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        InteractiveShape::schemas(schemas);
    }
}

impl ToSchema for ReplyBody {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("SendReply")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        ReplyShapes::schemas(schemas);
    }
}

/// A free-form reply, in the platform's message shape: `type` and the object it names.
#[derive(Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
#[expect(dead_code, reason = "read by `SendReply`; this type only describes it")]
enum ReplyShapes {
    Text {
        text: ReplyText,
        /// The id of a message of this activity to answer (the contact sees it quoted).
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
        tag: Option<ReplyTag>,
        /// Email only: the subject, used as given (default: `Re: <the contact's last subject>`);
        /// one line of 1–255 characters, at least one visible.
        #[schema(
            value_type = Option<String>,
            min_length = 1,
            max_length = 255,
            pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
        )]
        subject: Option<String>,
    },
    Image {
        image: ReplyCaptioned,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
        tag: Option<ReplyTag>,
    },
    Video {
        video: ReplyCaptioned,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
        tag: Option<ReplyTag>,
    },
    Audio {
        audio: ReplyFile,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
        tag: Option<ReplyTag>,
    },
    Document {
        document: ReplyDocument,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
        tag: Option<ReplyTag>,
    },
    Sticker {
        sticker: ReplyFile,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
        tag: Option<ReplyTag>,
    },
    /// WhatsApp; Instagram, as quick replies (buttons, list options) or a button template (a URL
    /// button), 400 for what it cannot show (an image header, a title over 20 characters, a row's
    /// description); and email, as an HTML part (each option a link that opens a reply saying
    /// it) beside a plain-text part with the options and links written out.
    Interactive {
        #[schema(value_type = InteractiveBody)]
        interactive: InteractiveShape,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
    },
    /// WhatsApp only.
    Location {
        location: LocationShape,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
    },
    /// WhatsApp only.
    Reaction {
        reaction: ReactionShape,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
    },
    /// WhatsApp, Instagram (a generic template's card) and email (an HTML card beside its plain
    /// text): one of your active products (its first
    /// picture, title and price) with a button to it on the storefront (`{storefront_url}/p/<id>`).
    Product {
        product: ProductShape,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
    },
    /// WhatsApp, Instagram (a generic template's card) and email (an HTML card beside its plain
    /// text): one of your carts (its lines and total) with a button to it on the storefront
    /// (`{storefront_url}/c/<code>`).
    Cart {
        cart: CartShape,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now:
        /// it is stored `scheduled` (201) and sent then, unless cancelled.
        #[schema(value_type = Option<String>, format = DateTime)]
        send_at: Option<String>,
    },
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ProductShape {
    /// One of your active products' `_id`.
    #[schema(min_length = 1, max_length = 128, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    id: String,
    /// One of its `variants[].id`: the card shows that variant's title and price.
    #[schema(min_length = 1, max_length = 128, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    variant_id: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct CartShape {
    /// One of your carts' 7-character code.
    #[schema(min_length = 7, max_length = 7, example = "Ab3kP9z")]
    code: String,
}

/// An interactive message in the WhatsApp Cloud API's shape, by `type`.
#[derive(Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
enum InteractiveShape {
    /// 1–3 reply buttons; the contact's pick comes back as a `button_reply` message whose
    /// `reply_to` is this one.
    Button { header: Option<HeaderShape>, body: BodyShape, footer: Option<FooterShape>, action: ButtonsAction },
    /// A list of up to 10 rows in up to 10 sections; the pick comes back as a `list_reply`.
    List { header: Option<TextHeaderShape>, body: ListBodyShape, footer: Option<FooterShape>, action: ListAction },
    /// A button that opens a URL.
    CtaUrl { header: Option<HeaderShape>, body: BodyShape, footer: Option<FooterShape>, action: CtaAction },
}

/// A header: `text` (with `text`) or `image` (with `image.link`).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct HeaderShape {
    #[serde(rename = "type")]
    kind: HeaderKind,
    #[schema(min_length = 1, max_length = 60)]
    text: Option<String>,
    image: Option<ReplyFile>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum HeaderKind {
    Text,
    Image,
}

/// A list's header: text only.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct TextHeaderShape {
    #[serde(rename = "type")]
    #[schema(pattern = "^text$")]
    kind: String,
    #[schema(min_length = 1, max_length = 60)]
    text: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct BodyShape {
    #[schema(min_length = 1, max_length = 1024)]
    text: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ListBodyShape {
    #[schema(min_length = 1, max_length = 4096)]
    text: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct FooterShape {
    #[schema(min_length = 1, max_length = 60)]
    text: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ButtonsAction {
    /// Ids and titles each distinct (titles regardless of case).
    #[schema(min_items = 1, max_items = 3)]
    buttons: Vec<ReplyButtonShape>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ReplyButtonShape {
    #[serde(rename = "type")]
    #[schema(pattern = "^reply$")]
    kind: String,
    reply: ButtonReplyShape,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ButtonReplyShape {
    /// What comes back when the contact taps it.
    #[schema(min_length = 1, max_length = 256)]
    id: String,
    #[schema(min_length = 1, max_length = 20)]
    title: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ListAction {
    /// The label of the button that opens the list.
    #[schema(min_length = 1, max_length = 20)]
    button: String,
    /// Each titled when there are several; 10 rows at most across all of them.
    #[schema(min_items = 1, max_items = 10)]
    sections: Vec<SectionShape>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct SectionShape {
    #[schema(min_length = 1, max_length = 24)]
    title: Option<String>,
    #[schema(min_items = 1, max_items = 10)]
    rows: Vec<RowShape>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct RowShape {
    /// Distinct across the list; comes back when the contact picks the row.
    #[schema(min_length = 1, max_length = 200)]
    id: String,
    #[schema(min_length = 1, max_length = 24)]
    title: String,
    #[schema(min_length = 1, max_length = 72)]
    description: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct CtaAction {
    #[schema(pattern = "^cta_url$")]
    name: String,
    parameters: CtaParameters,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct CtaParameters {
    #[schema(min_length = 1, max_length = 20)]
    display_text: String,
    /// An https URL (at most 2,048 characters).
    #[schema(
        max_length = 2048,
        pattern = r"^[Hh][Tt][Tt][Pp][Ss]://[^/?#@:\s\x00-\x1f\x7f-\x9f][^/?#@\s\x00-\x1f\x7f-\x9f]*([/?#][^\s\x00-\x1f\x7f-\x9f]*)?$"
    )]
    url: String,
}

/// A pin on a map.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct LocationShape {
    #[schema(minimum = -90, maximum = 90)]
    latitude: f64,
    #[schema(minimum = -180, maximum = 180)]
    longitude: f64,
    #[schema(min_length = 1, max_length = 1000)]
    name: Option<String>,
    #[schema(min_length = 1, max_length = 1000)]
    address: Option<String>,
}

/// An emoji on one of the activity's messages.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ReactionShape {
    /// A message of this activity that reached the platform.
    #[schema(min_length = 1, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    message_id: String,
    /// One emoji; an empty string removes the reaction.
    #[schema(max_length = 10, pattern = r"^[^\s\x00-\x1f\x7f-\x9f]*$")]
    emoji: String,
}

/// One of the contact's channels, as the contact shows it: the reply goes out there instead of
/// on the channel the contact last wrote on.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ReplyChannelShape {
    channel_type: ReplyChannelType,
    /// The contact's identifier on that channel.
    #[schema(min_length = 1, max_length = 256, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    channel_id: String,
}

/// The channels Parley replies on.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum ReplyChannelType {
    Whatsapp,
    Instagram,
    Email,
}

/// `human_agent`: a person answers, so an Instagram reply may go out up to 7 days after the
/// contact's last message.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
enum ReplyTag {
    HumanAgent,
}

/// `text` of a text reply.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ReplyText {
    /// 1–4096 characters (trimmed), at least one visible.
    #[schema(
        min_length = 1,
        max_length = 4096,
        pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$"
    )]
    body: String,
    /// Whether the platform may show a preview of the first link. Default false.
    preview_url: Option<bool>,
}

/// An image or a video, by link, with an optional caption.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ReplyCaptioned {
    /// An https URL the platform fetches the file from (at most 2,048 characters).
    #[schema(
        max_length = 2048,
        pattern = r"^[Hh][Tt][Tt][Pp][Ss]://[^/?#@:\s\x00-\x1f\x7f-\x9f][^/?#@\s\x00-\x1f\x7f-\x9f]*([/?#][^\s\x00-\x1f\x7f-\x9f]*)?$"
    )]
    link: String,
    /// Up to 1,024 characters; an empty caption is none.
    #[schema(max_length = 1024, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    caption: Option<String>,
}

/// A document, by link, with an optional caption and the file name the contact sees.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ReplyDocument {
    /// An https URL the platform fetches the file from (at most 2,048 characters).
    #[schema(
        max_length = 2048,
        pattern = r"^[Hh][Tt][Tt][Pp][Ss]://[^/?#@:\s\x00-\x1f\x7f-\x9f][^/?#@\s\x00-\x1f\x7f-\x9f]*([/?#][^\s\x00-\x1f\x7f-\x9f]*)?$"
    )]
    link: String,
    /// Up to 1,024 characters; an empty caption is none.
    #[schema(max_length = 1024, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    caption: Option<String>,
    /// 1–255 characters, without control characters or slashes.
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = r"^[^\x00-\x1f\x7f-\x9f/\\]*[^\s\x00-\x1f\x7f-\x9f/\\][^\x00-\x1f\x7f-\x9f/\\]*$"
    )]
    filename: Option<String>,
}

/// An audio file or a sticker, by link (the platform shows no caption for them).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "a shape for the OpenAPI document: nothing reads its fields")]
struct ReplyFile {
    /// An https URL the platform fetches the file from (at most 2,048 characters).
    #[schema(
        max_length = 2048,
        pattern = r"^[Hh][Tt][Tt][Pp][Ss]://[^/?#@:\s\x00-\x1f\x7f-\x9f][^/?#@\s\x00-\x1f\x7f-\x9f]*([/?#][^\s\x00-\x1f\x7f-\x9f]*)?$"
    )]
    link: String,
}
