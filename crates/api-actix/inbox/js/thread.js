// The open conversation: its header and actions (assign, close or reopen, mark read), its
// timeline, kept in step with the stream without reloading, and the composer and contact panel.

import { get, patch, post, seg, withQuery } from "./api.js";
import { alertError, announce, byId, channelName, coalesced, el, fill } from "./dom.js";
import { renderMessage } from "./messages.js";
import { me, state } from "./state.js";
import * as composer from "./composer.js";
import * as contact from "./contact.js";

const PAGE = 50;
let onChanged = () => {};
let activity = null;
let messages = new Map(); // id → { message, node }
let loadedOlder = 0;

export function init(options) {
  onChanged = options.onChanged;
  byId("back").addEventListener("click", () => (location.hash = ""));
  byId("assignee").addEventListener("change", (event) => assign(event.target.value));
  byId("take").addEventListener("click", () => assign("me", true));
  byId("toggle-status").addEventListener("click", toggleStatus);
  byId("mark-read").addEventListener("click", markRead);
  byId("older").addEventListener("click", older);
  composer.init({ current: () => activity, sent: () => refresh().then(onChanged) });
  contact.init({ current: () => activity, changed: () => refresh().then(onChanged) });
}

/** Opens the conversation `id` (null: none). */
export async function open(id) {
  state.openId = id;
  activity = null;
  messages = new Map();
  loadedOlder = 0;
  // Before the conversation loads, not after: a picker opened while it loads stays open.
  composer.reset();
  fill(byId("messages"));
  byId("thread").hidden = !id;
  byId("thread-empty").hidden = Boolean(id);
  byId("contact-pane").hidden = !id;
  if (!id) return;
  try {
    await refresh();
  } catch (e) {
    if (e.status === 404) {
      byId("thread").hidden = true;
      byId("contact-pane").hidden = true;
      fill(byId("thread-empty"), "This conversation does not exist, or was erased.");
      byId("thread-empty").hidden = false;
      return;
    }
    throw e;
  }
  byId("thread-heading").focus();
}

/** Reads the open conversation again: its activity and its newest messages. */
const reload = coalesced(load);
export const refresh = () => (state.openId ? reload() : Promise.resolve());

async function load() {
  const id = state.openId;
  const first = messages.size === 0;
  const [detail, page] = await Promise.all([get(`/v1/activities/${seg(id)}`), get(withQuery(`/v1/activities/${seg(id)}/messages`, { limit: PAGE }))]);
  if (state.openId !== id) return;
  activity = detail.data;
  renderHead();
  merge(page.data, first);
  byId("older").hidden = loadedOlder + PAGE >= page.pagination.total;
  composer.update(activity);
  await contact.show(activity);
}

function renderHead() {
  const a = activity;
  fill(byId("thread-heading"), a.profile_name || a.channel_identifiers[0] || "Unknown contact");
  const channels = a.channels.map((c) => `${channelName(c.channel_type)} ${c.channel_id}`).join(", ");
  fill(byId("thread-meta"), `${a.status[0].toUpperCase()}${a.status.slice(1)} · ${channels}`);
  const select = byId("assignee");
  const options = [el("option", { value: "" }, "Nobody")];
  for (const member of state.members) options.push(el("option", { value: member.id }, member.id === me().id ? `${member.name} (you)` : member.name));
  if (a.assigned_to && !state.members.some((m) => m.id === a.assigned_to)) options.push(el("option", { value: a.assigned_to }, a.assigned_to));
  fill(select, options);
  select.value = a.assigned_to || "";
  byId("take").hidden = a.assigned_to === me().id;
  byId("toggle-status").textContent = a.status === "closed" ? "Reopen" : "Close";
  byId("mark-read").disabled = a.unread_count === 0;
  byId("mark-read").textContent = a.unread_count > 0 ? `Mark read (${a.unread_count})` : "Mark read";
}

/** Puts messages in the timeline in time order, replacing those that changed; keeps the newest
 * in view when the reader was already there (or `toEnd`). */
function merge(list, toEnd) {
  const log = byId("messages");
  const atEnd = toEnd || log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  let added = false;
  for (const message of list) {
    const known = messages.get(message.id);
    const json = JSON.stringify(message);
    if (known && known.json === json) continue;
    const node = renderMessage(message, lookup);
    if (known) known.node.replaceWith(node);
    messages.set(message.id, { message, node, json });
    if (!known) {
      place(node, message);
      added = true;
    }
  }
  if (added && atEnd && log.lastElementChild) log.lastElementChild.scrollIntoView({ block: "end" });
}

function place(node, message) {
  const log = byId("messages");
  const later = [...messages.values()].filter((m) => m.node.isConnected && m.message.created_at > message.created_at).sort((x, y) => (x.message.created_at < y.message.created_at ? -1 : 1))[0];
  if (later) log.insertBefore(node, later.node);
  else log.append(node);
}

function lookup(id) {
  if (!id) return null;
  const known = messages.get(id);
  if (known) return known.message;
  for (const m of messages.values()) if (m.message.platform_message_id === id) return m.message;
  return null;
}

async function older() {
  loadedOlder += PAGE;
  const page = await get(withQuery(`/v1/activities/${seg(state.openId)}/messages`, { limit: PAGE, offset: loadedOlder }));
  merge(page.data);
  byId("older").hidden = loadedOlder + PAGE >= page.pagination.total;
}

async function act(what, run) {
  try {
    await run();
    announce(what);
    await refresh();
    onChanged();
  } catch (e) {
    alertError(e);
    await refresh();
  }
}

function assign(to, ifUnassigned) {
  const body = { assigned_to: to || null };
  if (ifUnassigned) body.if_unassigned = !activity.assigned_to;
  return act(to ? "Assigned." : "Unassigned.", () => patch(`/v1/activities/${seg(activity.id)}`, body));
}

function toggleStatus() {
  const status = activity.status === "closed" ? "open" : "closed";
  return act(status === "closed" ? "Conversation closed." : "Conversation reopened.", () => patch(`/v1/activities/${seg(activity.id)}`, { status }));
}

function markRead() {
  return act("Marked read.", () => post(`/v1/activities/${seg(activity.id)}/read`, {}));
}

/** Events about the open conversation refresh it; tags and members changes redraw what shows them. */
export function onEvent(event) {
  if (!activity) return;
  const object = (event.data && event.data.object) || {};
  const about = object.activity_id === activity.id || object.id === activity.id || object.id === activity.contact_id || event.type.startsWith("tag.");
  if (about) refresh();
}

export function tagsChanged() {
  if (activity) contact.show(activity);
}
