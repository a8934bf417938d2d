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
const SHAPE_TITLES: [&str; 6] =
    ["SendReplyText", "SendReplyImage", "SendReplyVideo", "SendReplyAudio", "SendReplyDocument", "SendReplySticker"];

impl PartialSchema for ReplyBody {
    fn schema() -> RefOr<Schema> {
        let mut schema = ReplyShapes::schema();
        if let RefOr::T(Schema::OneOf(shapes)) = &mut schema {
            assert_eq!(shapes.items.len(), SHAPE_TITLES.len(), "a title for every reply shape");
            for (shape, title) in shapes.items.iter_mut().zip(SHAPE_TITLES) {
                if let RefOr::T(Schema::Object(object)) = shape {
                    object.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
                    object.title = Some(title.into());
                }
            }
        }
        schema
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
#[allow(dead_code)] // read by `SendReply`; this type only describes it
enum ReplyShapes {
    Text {
        text: ReplyText,
        /// The id of a message of this activity to answer (the contact sees it quoted).
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
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
        tag: Option<ReplyTag>,
    },
    Video {
        video: ReplyCaptioned,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        tag: Option<ReplyTag>,
    },
    Audio {
        audio: ReplyFile,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        tag: Option<ReplyTag>,
    },
    Document {
        document: ReplyDocument,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        tag: Option<ReplyTag>,
    },
    Sticker {
        sticker: ReplyFile,
        #[schema(value_type = Option<String>, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
        reply_to: Option<String>,
        channel: Option<ReplyChannelShape>,
        tag: Option<ReplyTag>,
    },
}

/// One of the contact's channels, as the contact shows it: the reply goes out there instead of
/// on the channel the contact last wrote on.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ReplyChannelShape {
    channel_type: ReplyChannelType,
    /// The contact's identifier on that channel.
    #[schema(min_length = 1, max_length = 256, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    channel_id: String,
}

/// The channels Parley replies on.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum ReplyChannelType {
    Whatsapp,
    Instagram,
    Email,
}

/// `human_agent`: a person answers, so an Instagram reply may go out up to 7 days after the
/// contact's last message.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum ReplyTag {
    HumanAgent,
}

/// `text` of a text reply.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
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
#[allow(dead_code)]
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
#[allow(dead_code)]
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
#[allow(dead_code)]
struct ReplyFile {
    /// An https URL the platform fetches the file from (at most 2,048 characters).
    #[schema(
        max_length = 2048,
        pattern = r"^[Hh][Tt][Tt][Pp][Ss]://[^/?#@:\s\x00-\x1f\x7f-\x9f][^/?#@\s\x00-\x1f\x7f-\x9f]*([/?#][^\s\x00-\x1f\x7f-\x9f]*)?$"
    )]
    link: String,
}
