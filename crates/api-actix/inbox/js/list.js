// The conversation list and its filters: mine / unassigned / all, status, channel, unread and a
// search, newest change first. Live events refresh it; the open conversation stays marked.

import { get, withQuery } from "./api.js";
import { byId, coalesced, el, fill, when } from "./dom.js";

// 25 a page, as Chatwoot loads them: the list reads in one request, and its cost is measured
// (`cargo xtask bench api`, "the inbox's list").
const PAGE = 25;
let onOpen = () => {};
let shown = PAGE;
let selected = null;
let searchTimer = null;

export function init(options) {
  onOpen = options.onOpen;
  const form = byId("filters");
  form.addEventListener("change", () => restart());
  form.addEventListener("submit", (event) => event.preventDefault());
  byId("filter-search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(restart, 250);
  });
  byId("more-conversations").addEventListener("click", () => {
    shown += PAGE;
    refresh();
  });
}

function restart() {
  shown = PAGE;
  refresh();
}

function query() {
  const form = byId("filters");
  const scope = form.elements.scope.value;
  return {
    assigned_to: scope === "mine" ? "me" : scope === "unassigned" ? "none" : "",
    status: form.elements.status.value,
    channel_type: form.elements.channel.value,
    unread: form.elements.unread.checked ? "true" : "",
    search: form.elements.search.value.trim(),
  };
}

/** Reloads what the list shows. */
export const refresh = coalesced(load);

async function load() {
  const params = query();
  const items = [];
  let total = 0;
  // The API pages by at most 100: read as many pages as the list shows.
  for (let offset = 0; offset < shown; offset += 100) {
    const page = await get(withQuery("/v1/activities", { ...params, limit: Math.min(100, shown - offset), offset }));
    items.push(...page.data);
    total = page.pagination.total;
    if (page.data.length === 0) break;
  }
  render(items, total);
}

function render(items, total) {
  const list = byId("conversations");
  if (items.length === 0) {
    fill(list, el("li", { class: "empty" }, "No conversation matches."));
  } else {
    fill(list, items.map(item));
  }
  byId("more-conversations").hidden = items.length >= total;
}

function item(activity) {
  const name = activity.profile_name || activity.channel_identifiers[0] || "Unknown contact";
  const unread = activity.unread_count > 0;
  const last = activity.last_message;
  const preview = last ? (last.direction === "internal" ? "Note: " : last.direction === "outbound" ? "You: " : "") + (last.text || `[${last.type}]`) : "No message yet";
  const link = el(
    "a",
    {
      href: `#/activities/${encodeURIComponent(activity.id)}`,
      class: unread ? "conversation unread" : "conversation",
      "aria-current": activity.id === selected ? "page" : null,
      "data-id": activity.id,
    },
    el("span", { class: "name" }, name),
    when(activity.updated_at),
    el("span", { class: "preview" }, preview),
    el(
      "span",
      { class: "badges" },
      el("span", { class: `state state-${activity.status}` }, activity.status),
      activity.assignee ? el("span", { class: "assignee" }, activity.assignee.name) : null,
      unread ? el("span", { class: "unread-count", "aria-label": `${activity.unread_count} unread` }, String(activity.unread_count)) : null,
      activity.tags.map((tag) => el("span", { class: "tag" }, tag.name)),
    ),
  );
  link.addEventListener("click", (event) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    onOpen(activity.id);
  });
  return el("li", {}, link);
}

/** Marks the open conversation. */
export function select(id) {
  selected = id;
  document.body.classList.toggle("reading", Boolean(id));
  for (const link of byId("conversations").querySelectorAll("a.conversation")) {
    if (link.dataset.id === id) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** A change to any conversation may move it in the list: read it again. */
export function onEvent(event) {
  if (event.type.startsWith("message.") || event.type.startsWith("activity.") || event.type.startsWith("note.") || event.type.startsWith("tag.") || event.type.startsWith("contact.")) {
    refresh();
  }
}
