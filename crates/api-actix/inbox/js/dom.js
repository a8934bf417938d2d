// Building the page's nodes. Every text a customer, a member or the server wrote reaches the
// page as a text node (textContent), never as markup: nothing here parses HTML.

/**
 * An element: `el("li", { class: "x", "aria-label": "y" }, child, "text", …)`. Attributes are
 * set with setAttribute (never an `on…` handler); children are nodes or strings (as text).
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) throw new Error(`no inline handlers: ${name}`);
    node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces a node's children. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

export const byId = (id) => document.getElementById(id);

/** A link only when it is http(s): a `javascript:` or `data:` URL from a message becomes text. */
export function safeLink(url, text) {
  let parsed = null;
  try {
    parsed = new URL(url, location.origin);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) return el("span", { class: "inert-link" }, text || url);
  return el("a", { href: parsed.href, target: "_blank", rel: "noopener noreferrer nofollow" }, text || url);
}

/** An https URL for `<img>`/`<video>`, or null (http and other schemes are not loaded). */
export function safeMediaUrl(url) {
  try {
    const parsed = new URL(url, location.origin);
    return parsed.protocol === "https:" || parsed.origin === location.origin ? parsed.href : null;
  } catch {
    return null;
  }
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dayFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A `<time>`: the hour today, the day otherwise; the full date as its title. */
export function when(iso) {
  if (!iso) return null;
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return el("time", { datetime: iso, title: fullFormat.format(date) }, today ? timeFormat.format(date) : dayFormat.format(date));
}

export const fullDate = (iso) => fullFormat.format(new Date(iso));

/** An amount in a currency, as the reader's locale writes it. */
export function money(amount, currency) {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

/**
 * `load` wrapped so that calls never overlap: a call while one runs makes exactly one more run
 * after it (events arrive in bursts; the last state is what matters).
 */
export function coalesced(load) {
  let running = null;
  let again = false;
  const run = () => {
    if (running) {
      again = true;
      return running;
    }
    running = load().finally(() => {
      running = null;
      if (again) {
        again = false;
        run();
      }
    });
    return running;
  };
  return run;
}

/** Shows a message to screen readers and sighted users alike for a few seconds. */
let statusTimer = null;
export function announce(text) {
  const status = byId("status");
  status.textContent = text;
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => (status.textContent = ""), 4000);
}

/** Shows an error until the next action. */
export function alertError(error) {
  const alert = byId("alert");
  alert.textContent = error instanceof Error ? error.message : String(error);
  alert.hidden = false;
}

export function clearAlert() {
  const alert = byId("alert");
  alert.hidden = true;
  alert.textContent = "";
}

export const CHANNEL_NAMES = { whatsapp: "WhatsApp", instagram: "Instagram", email: "Email" };
export const channelName = (type) => CHANNEL_NAMES[type] || type;
