// The composer: a reply or a private note, `/short_code` canned responses, product and cart
// cards, and the 24-hour window's state with the template fallback once it has closed.

import { get, post, seg, withQuery } from "./api.js";
import { announce, byId, el, fill, money, when } from "./dom.js";
import { me } from "./state.js";
import { approvedTemplates, components, placeholders } from "./templates.js";

const WINDOW_MS = 24 * 60 * 60 * 1000;
let current = () => null;
let sent = () => {};
let canned = [];
let active = -1;
let cannedTimer = null;
let productTimer = null;
let templates = null;

export function init(options) {
  current = options.current;
  sent = options.sent;
  const form = byId("composer");
  const text = byId("composer-text");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send();
  });
  form.elements.mode.forEach((radio) => radio.addEventListener("change", () => update(current())));
  text.addEventListener("input", () => {
    clearTimeout(cannedTimer);
    cannedTimer = setTimeout(suggest, 150);
  });
  text.addEventListener("keydown", keys);
  for (const [button, picker, opened] of [
    ["attach-product", "product-picker", () => findProducts()],
    ["attach-cart", "cart-picker", () => listCarts()],
    ["use-template", "template-picker", () => loadTemplates()],
  ]) {
    byId(button).addEventListener("click", () => toggle(button, picker, opened));
  }
  byId("product-query").addEventListener("input", () => {
    clearTimeout(productTimer);
    productTimer = setTimeout(findProducts, 250);
  });
  byId("template").addEventListener("change", templateFields);
  byId("send-template").addEventListener("click", sendTemplate);
}

function toggle(buttonId, pickerId, opened) {
  const picker = byId(pickerId);
  const open = picker.hidden;
  for (const [b, p] of [["attach-product", "product-picker"], ["attach-cart", "cart-picker"], ["use-template", "template-picker"]]) {
    byId(p).hidden = true;
    byId(b).setAttribute("aria-expanded", "false");
  }
  picker.hidden = !open;
  byId(buttonId).setAttribute("aria-expanded", String(open));
  if (open) {
    opened();
    const first = picker.querySelector("input, select, button");
    if (first) first.focus();
  }
}

/** Back to an empty reply, pickers closed. */
export function reset() {
  byId("composer-text").value = "";
  byId("composer-error").textContent = "";
  byId("mode-reply").checked = true;
  closeCanned();
  for (const [b, p] of [["attach-product", "product-picker"], ["attach-cart", "cart-picker"], ["use-template", "template-picker"]]) {
    byId(p).hidden = true;
    byId(b).setAttribute("aria-expanded", "false");
  }
  update(current());
}

const noting = () => byId("mode-note").checked;

/** The channel a reply goes to: the contact's newest inbound message's, else their first. */
function replyChannel(activity) {
  const inbound = document.querySelectorAll("#messages li.inbound");
  const type = inbound.length ? inbound[inbound.length - 1].dataset.channel : null;
  return type || (activity.channels[0] && activity.channels[0].channel_type);
}

/** Whether a reply may go out now, and what the composer says about it. */
function windowState(activity) {
  if (replyChannel(activity) === "email") return { open: true, says: "Email: no reply window." };
  if (!activity.last_inbound_at) return { open: false, says: "The contact has not written: send an approved template to start." };
  const closes = new Date(activity.last_inbound_at).getTime() + WINDOW_MS;
  if (closes <= Date.now()) return { open: false, says: "The 24-hour window is closed: only an approved template can reach the contact." };
  return { open: true, says: "Reply window open until ", until: new Date(closes).toISOString() };
}

/** Redraws the window's state and what the buttons offer. */
export function update(activity) {
  if (!activity) return;
  const state = windowState(activity);
  const note = noting();
  fill(byId("window-state"), note ? "Notes are seen by the team only." : [state.says, state.until ? when(state.until) : null]);
  byId("window-state").className = note ? "window note" : state.open ? "window open" : "window closed";
  byId("send").textContent = note ? "Add note" : "Send";
  byId("send").disabled = !note && !state.open;
  byId("composer-text").placeholder = note ? "Write a note for the team" : "Write a reply; / for canned responses";
  const email = replyChannel(activity) === "email";
  byId("attach-product").hidden = note || email || !state.open;
  byId("attach-cart").hidden = note || email || !state.open;
  byId("use-template").hidden = note || email || activity.channels.every((c) => c.channel_type !== "whatsapp");
}

function showError(error) {
  byId("composer-error").textContent = error.code === "WINDOW_CLOSED" ? `${error.message} Use Template.` : error.message;
}

async function send() {
  const activity = current();
  const text = byId("composer-text").value;
  byId("composer-error").textContent = "";
  if (!text.trim()) {
    byId("composer-error").textContent = noting() ? "Write the note first." : "Write the reply first.";
    byId("composer-text").focus();
    return;
  }
  const button = byId("send");
  button.disabled = true;
  try {
    if (noting()) {
      await post(`/v1/activities/${seg(activity.id)}/notes`, { text, author: me().name });
      announce("Note added.");
    } else {
      await post(`/v1/activities/${seg(activity.id)}/messages`, { type: "text", text: { body: text } });
      announce("Reply sent.");
    }
    byId("composer-text").value = "";
    await sent();
  } catch (e) {
    showError(e);
  } finally {
    update(current());
    byId("composer-text").focus();
  }
}

async function sendRich(body, what) {
  const activity = current();
  byId("composer-error").textContent = "";
  try {
    await post(`/v1/activities/${seg(activity.id)}/messages`, body);
    announce(`${what} sent.`);
    reset();
    await sent();
  } catch (e) {
    showError(e);
  }
}

// Canned responses: a combobox on the textarea while it holds `/code`.

async function suggest() {
  const match = /^\/(\S{0,64})$/.exec(byId("composer-text").value);
  if (!match || noting()) return closeCanned();
  const page = await get(withQuery("/v1/canned_responses", { search: match[1], limit: 8 }));
  canned = page.data;
  active = canned.length ? 0 : -1;
  drawCanned();
}

function drawCanned() {
  const list = byId("canned");
  const text = byId("composer-text");
  if (!canned.length) return closeCanned();
  fill(
    list,
    canned.map((c, i) => {
      const option = el("li", { id: `canned-${i}`, role: "option", "aria-selected": String(i === active) }, el("strong", {}, `/${c.short_code}`), " ", c.text);
      option.addEventListener("mousedown", (event) => {
        event.preventDefault();
        pick(i);
      });
      return option;
    }),
  );
  list.hidden = false;
  text.setAttribute("aria-expanded", "true");
  text.setAttribute("aria-activedescendant", active >= 0 ? `canned-${active}` : "");
}

function closeCanned() {
  canned = [];
  active = -1;
  byId("canned").hidden = true;
  fill(byId("canned"));
  byId("composer-text").setAttribute("aria-expanded", "false");
  byId("composer-text").removeAttribute("aria-activedescendant");
}

function pick(i) {
  const chosen = canned[i];
  closeCanned();
  if (!chosen) return;
  byId("composer-text").value = chosen.text;
  byId("composer-text").focus();
  announce(`Canned response /${chosen.short_code} inserted.`);
}

function keys(event) {
  if (canned.length) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      active = (active + (event.key === "ArrowDown" ? 1 : canned.length - 1)) % canned.length;
      drawCanned();
      return;
    }
    if (event.key === "Enter" || event.key === "Tab") {
      event.preventDefault();
      pick(active);
      return;
    }
    if (event.key === "Escape") {
      event.preventDefault();
      closeCanned();
      return;
    }
  }
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
}

// Product and cart cards.

async function findProducts() {
  const q = byId("product-query").value.trim();
  const page = q ? await get(withQuery("/v1/products/search", { q, limit: 8 })) : await get(withQuery("/v1/products", { limit: 8 }));
  const list = byId("products");
  if (!page.data.length) return fill(list, el("li", {}, "No product matches."));
  fill(
    list,
    page.data.map((p) => {
      const button = el("button", { type: "button" }, `Send ${p.title} (${money(p.base_price, p.currency)})`);
      button.addEventListener("click", () => sendRich({ type: "product", product: { id: p._id } }, "Product"));
      return el("li", {}, button);
    }),
  );
}

function listCarts() {
  const activity = current();
  const list = byId("carts");
  if (!activity.carts.length) return fill(list, el("li", {}, "The contact has not brought a cart into this conversation."));
  fill(
    list,
    activity.carts.map((cart) => {
      const button = el("button", { type: "button" }, `Send cart ${cart.code}`);
      button.addEventListener("click", () => sendRich({ type: "cart", cart: { code: cart.code } }, "Cart"));
      return el("li", {}, button);
    }),
  );
}

// Templates: the way back to a contact once the window has closed.

async function loadTemplates() {
  templates = await approvedTemplates();
  // A template is approved on one line: offer those of the line the conversation uses, when known.
  const lines = [...document.querySelectorAll("#messages li[data-line]")].map((li) => li.dataset.line);
  const line = lines[lines.length - 1];
  const usable = line && templates.some((t) => t.channel_id === line) ? templates.filter((t) => t.channel_id === line) : templates;
  const select = byId("template");
  fill(select, usable.length ? usable.map((t) => el("option", { value: t.id }, `${t.name} (${t.language})`)) : [el("option", { value: "" }, "No approved template")]);
  byId("send-template").disabled = !usable.length;
  templateFields();
}

function chosenTemplate() {
  return (templates || []).find((t) => t.id === byId("template").value) || null;
}

function templateFields() {
  const template = chosenTemplate();
  const box = byId("template-fields");
  if (!template) return fill(box);
  const { body, names } = placeholders(template);
  fill(
    box,
    names.map((name, i) => el("p", {}, el("label", { for: `template-field-${i}` }, `Value for {{${name}}}`), el("input", { id: `template-field-${i}`, type: "text", maxlength: "1024", "data-name": name }))),
  );
  fill(byId("template-preview"), body);
}

async function sendTemplate() {
  const activity = current();
  const template = chosenTemplate();
  if (!template) return;
  const whatsapp = activity.channels.find((c) => c.channel_type === "whatsapp");
  const values = placeholders(template).names.map((_, i) => byId(`template-field-${i}`).value);
  byId("composer-error").textContent = "";
  try {
    await post(`/v1/templates/${seg(template.id)}/send`, { to: whatsapp.channel_id, components: components(template, values) });
    announce("Template sent.");
    reset();
    await sent();
  } catch (e) {
    showError(e);
  }
}
