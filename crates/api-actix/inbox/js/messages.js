// One timeline entry as the team reads it, for every kind a conversation holds: text, media
// (inline through the media endpoint), locations, buttons and lists, the contact's choices,
// reactions, product and cart cards, templates, emails with their attachments, notes.
// Everything a customer wrote is set as text: see dom.js.

import { seg } from "./api.js";
import { el, fullDate, money, safeLink, safeMediaUrl } from "./dom.js";

const STATUS = { sending: "Sending", sent: "Sent", delivered: "Delivered", read: "Read", failed: "Failed", received: "Received", recorded: "Note" };

/** The `<li>` for `message`; `lookup(id or platform id)` finds another loaded message. */
export function renderMessage(message, lookup) {
  const who = message.direction === "inbound" ? "Contact" : message.direction === "internal" ? "Note" : "You";
  const author = message.direction === "internal" && message.content && message.content.note && message.content.note.author;
  const body = el("div", { class: "body" }, content(message, lookup));
  const quoted = message.reply_to && message.type !== "reaction" ? quote(lookup(message.reply_to)) : null;
  return el(
    "li",
    {
      class: `message ${message.direction} kind-${message.type}`,
      "data-id": message.id,
      "data-channel": message.channel && message.channel.channel_type,
      "data-line": message.line_id,
    },
    el("p", { class: "who" }, author ? `Note by ${author}` : who),
    quoted,
    body,
    footer(message),
  );
}

function footer(message) {
  const status = message.direction === "outbound" ? STATUS[message.status] || message.status : null;
  return el(
    "p",
    { class: "footer" },
    el("time", { datetime: message.created_at }, fullDate(message.created_at)),
    status ? el("span", { class: `delivery delivery-${message.status}` }, ` · ${status}`) : null,
    message.error_message ? el("span", { class: "delivery-error" }, ` · ${message.error_message}`) : null,
    message.deleted_at ? el("span", { class: "deleted" }, " · deleted by the contact") : null,
  );
}

function quote(target) {
  if (!target) return null;
  return el("blockquote", { class: "quote" }, `In reply to: ${summary(target)}`);
}

/** A message in a few words, for quotes and reactions. */
export function summary(message) {
  return message.text || (message.content && message.content[message.type] && message.content[message.type].text) || `[${message.type}]`;
}

function mediaUrl(message) {
  // Inbound media goes through Parley (the platform's links expire, and need its token).
  if (message.media && (message.media.id || message.media.link) && message.direction === "inbound") {
    return `/v1/activities/${seg(message.activity_id)}/messages/${seg(message.id)}/media`;
  }
  return message.media && message.media.link ? safeMediaUrl(message.media.link) : null;
}

function content(message, lookup) {
  const c = message.content || {};
  switch (message.type) {
    case "image":
    case "sticker":
      return media(message, (src) => el("img", { src, alt: message.text || (message.type === "sticker" ? "Sticker" : "Image"), loading: "lazy" }));
    case "video":
      return media(message, (src) => el("video", { src, controls: true, preload: "metadata", "aria-label": message.text || "Video" }));
    case "audio":
      return media(message, (src) => el("audio", { src, controls: true, preload: "metadata", "aria-label": "Voice or audio message" }));
    case "document":
      return document_(message);
    case "share":
    case "story_mention":
      return [message.text ? el("p", {}, message.text) : null, message.media && message.media.link ? safeLink(message.media.link, message.type === "share" ? "Shared post" : "Story mention") : null];
    case "location":
      return location_(message.location);
    case "interactive":
      return interactive(message, c.interactive || {});
    case "button":
      return el("p", { class: "choice" }, `Tapped: ${message.text || ""}`);
    case "reaction":
      return reaction(message, c.reaction || {}, lookup);
    case "product":
      return productCard(c.product || {});
    case "cart":
      return cartCard(c.cart || {});
    case "template":
      return [el("p", { class: "template-name" }, `Template ${(c.template && c.template.name) || message.template_id || ""}`), text(message.text)];
    case "email":
      return email(message, lookup);
    case "contacts":
      return el("p", {}, `Shared ${(c.contacts || []).length} contact card(s)`);
    case "order":
      return [el("p", {}, `Order of ${((c.order && c.order.product_items) || []).length} item(s)`), text(message.text)];
    case "flow_reply":
      return [text(message.text), el("pre", { class: "raw" }, JSON.stringify((message.flow_reply && message.flow_reply.response) || {}, null, 2))];
    case "note":
      return text(message.text || (c.note && c.note.text));
    case "unsupported":
      return el("p", { class: "unsupported" }, "A kind of message Parley does not show yet.");
    default:
      return text(message.text);
  }
}

function text(value) {
  return value ? el("p", { class: "text" }, value) : null;
}

function media(message, make) {
  const src = mediaUrl(message);
  return [src ? make(src) : el("p", { class: "unsupported" }, `[${message.type}]`), message.type === "image" || message.type === "video" ? text(message.text) : null];
}

function document_(message) {
  const src = mediaUrl(message);
  const name = (message.media && message.media.filename) || "Document";
  return [src ? safeLink(src, `Download ${name}`) : el("p", {}, name), text(message.text)];
}

function location_(where) {
  if (!where) return null;
  const lat = Number(where.latitude);
  const lon = Number(where.longitude);
  const map = `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=16/${lat}/${lon}`;
  return el(
    "div",
    { class: "location" },
    where.name ? el("p", { class: "place" }, where.name) : null,
    where.address ? el("p", {}, where.address) : null,
    safeLink(map, `Map: ${lat.toFixed(5)}, ${lon.toFixed(5)}`),
  );
}

function interactive(message, object) {
  if (object.button_reply || object.list_reply) {
    const choice = object.button_reply || object.list_reply;
    return el("p", { class: "choice" }, `Chose: ${choice.title || message.text || ""}`);
  }
  const action = object.action || {};
  const parts = [];
  if (object.header && object.header.type === "text") parts.push(el("p", { class: "header" }, object.header.text));
  if (object.header && object.header.image && safeMediaUrl(object.header.image.link)) parts.push(el("img", { src: safeMediaUrl(object.header.image.link), alt: "Header image" }));
  parts.push(text((object.body && object.body.text) || message.text));
  if (object.type === "button") {
    parts.push(el("ul", { class: "offered", "aria-label": "Buttons offered" }, (action.buttons || []).map((b) => el("li", {}, (b.reply && b.reply.title) || ""))));
  } else if (object.type === "list") {
    parts.push(
      el("p", { class: "list-button" }, `List: ${action.button || ""}`),
      (action.sections || []).map((section) =>
        el(
          "ul",
          { class: "offered", "aria-label": section.title ? `Options: ${section.title}` : "Options" },
          (section.rows || []).map((row) => el("li", {}, row.title, row.description ? el("span", { class: "row-description" }, ` ${row.description}`) : null)),
        ),
      ),
    );
  } else if (object.type === "cta_url" && action.parameters) {
    parts.push(safeLink(action.parameters.url, action.parameters.display_text));
  }
  if (object.footer && object.footer.text) parts.push(el("p", { class: "footer-text" }, object.footer.text));
  return parts;
}

function reaction(message, object, lookup) {
  const target = lookup(message.reply_to) || lookup(object.message_id);
  const emoji = message.text || object.emoji;
  const about = target ? ` to “${summary(target)}”` : "";
  return el("p", { class: "reaction" }, emoji ? `Reacted ${emoji}${about}` : `Removed a reaction${about}`);
}

function productCard(card) {
  const image = card.image ? safeMediaUrl(card.image) : null;
  return el(
    "div",
    { class: "msg-card" },
    image ? el("img", { src: image, alt: card.title || "Product", loading: "lazy" }) : null,
    el("p", { class: "card-title" }, card.title || "Product"),
    card.price !== undefined ? el("p", { class: "price" }, money(card.price, card.currency)) : null,
    card.url ? safeLink(card.url, "View product") : null,
  );
}

/** A cart's lines and exact total, as the cart message showed them. */
export function cartCard(card) {
  return el(
    "div",
    { class: "msg-card" },
    el("p", { class: "card-title" }, `Cart ${card.code || ""}`),
    el(
      "table",
      { class: "lines" },
      el("caption", { class: "visually-hidden" }, "Cart lines"),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Item"), el("th", { scope: "col" }, "Qty"), el("th", { scope: "col" }, "Total"))),
      el(
        "tbody",
        {},
        (card.lines || []).map((line) => el("tr", {}, el("td", {}, line.title), el("td", {}, String(line.qty)), el("td", {}, card.currency ? money(line.line_total, card.currency) : String(line.line_total)))),
      ),
      card.total !== undefined && card.total !== null
        ? el("tfoot", {}, el("tr", {}, el("th", { scope: "row", colspan: "2" }, "Total"), el("td", {}, money(card.total, card.currency))))
        : null,
    ),
    card.url ? safeLink(card.url, "View cart") : null,
  );
}

function email(message, lookup) {
  const mail = message.email || {};
  // A rich reply sent by email shows as its card, as on the other channels.
  const rich = message.content && message.content.email && message.content.email.rich;
  return [
    mail.subject ? el("p", { class: "subject" }, mail.subject) : null,
    rich && rich.type ? content({ ...message, type: rich.type, content: rich, text: null }, lookup) : text(message.text),
    message.attachments.length
      ? el(
          "ul",
          { class: "attachments", "aria-label": "Attachments" },
          message.attachments.map((a) =>
            el("li", {}, safeLink(`/v1/activities/${seg(message.activity_id)}/messages/${seg(message.id)}/media?attachment=${seg(a.id)}`, a.filename || a.mime_type)),
          ),
        )
      : null,
  ];
}
