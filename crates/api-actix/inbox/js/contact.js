// The contact's panel beside the conversation: who they are, their channels and attributes,
// the conversation's tags (add and remove), and the carts they brought.

import { del, get, post, seg, withQuery } from "./api.js";
import { alertError, announce, byId, channelName, el, fill, when } from "./dom.js";
import { state } from "./state.js";

let current = () => null;
let changed = () => {};

export function init(options) {
  current = options.current;
  changed = options.changed;
  byId("tag-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const tag = byId("tag-add").value;
    if (!tag) return;
    await act("Tag added.", () => post(`/v1/activities/${seg(current().id)}/tags`, { tag_ids: [tag] }));
  });
}

async function act(what, run) {
  try {
    await run();
    announce(what);
    await changed();
  } catch (e) {
    alertError(e);
  }
}

/** Draws the panel for `activity` (its detail). */
export async function show(activity) {
  const contact = (await get(`/v1/contacts/${seg(activity.contact_id)}`)).data;
  if (!current() || current().id !== activity.id) return;
  fill(
    byId("contact-fields"),
    field("Name", contact.profile_name),
    field("Email", contact.email),
    field("Notes", contact.notes),
    field("Contact since", when(contact.created_at)),
  );
  fill(
    byId("contact-channels"),
    contact.channels.map((c) => el("li", {}, `${channelName(c.channel_type)}: ${c.channel_id}`, c.username ? ` (@${c.username})` : null)),
  );
  const attributes = Object.entries(contact.custom_attributes || {});
  fill(byId("contact-attributes"), attributes.length ? attributes.map(([k, v]) => field(k, typeof v === "string" ? v : JSON.stringify(v))) : el("dd", {}, "None"));
  drawTags(activity);
  await drawCarts(activity);
}

function field(name, value) {
  if (value === null || value === undefined || value === "") return null;
  return [el("dt", {}, name), el("dd", {}, value)];
}

function drawTags(activity) {
  const list = byId("tags");
  fill(
    list,
    activity.tags.length
      ? activity.tags.map((tag) => {
          const remove = el("button", { type: "button", class: "remove", "aria-label": `Remove tag ${tag.name}` }, "×");
          remove.addEventListener("click", () => act("Tag removed.", () => del(withQuery(`/v1/activities/${seg(activity.id)}/tags`, { tag_id: tag.id }))));
          return el("li", { class: "tag" }, tag.name, " ", remove);
        })
      : el("li", {}, "No tag"),
  );
  const attached = new Set(activity.tags.map((t) => t.id));
  const free = state.tags.filter((t) => !attached.has(t.id));
  // A live refresh redraws the menu: keep what the member picked while it is still offered.
  const select = byId("tag-add");
  const picked = select.value;
  fill(select, free.length ? free.map((t) => el("option", { value: t.id }, t.name)) : el("option", { value: "" }, "No other tag"));
  if (free.some((t) => t.id === picked)) select.value = picked;
}

async function drawCarts(activity) {
  const list = byId("contact-carts");
  if (!activity.carts.length) return fill(list, el("li", {}, "No cart"));
  const carts = await Promise.all(activity.carts.map((c) => get(`/v1/carts/${seg(c.code)}`).then((r) => r.data, () => null)));
  fill(
    list,
    activity.carts.map((mention, i) => {
      const cart = carts[i];
      if (!cart) return el("li", {}, `Cart ${mention.code} (no longer available)`);
      const lines = cart.items.map((item) => `${item.qty} × ${item.title}`).join(", ");
      return el("li", {}, el("strong", {}, `Cart ${cart.code}`), " ", when(mention.created_at), el("br"), lines);
    }),
  );
}
