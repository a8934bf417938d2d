// The rule editor: a rule's name, event, conditions and actions as a form, one group of
// controls per condition and per action, read back into the body `/v1/rules` takes. The server
// checks the rule; a fault it names (`conditions[1].value`) marks the control that holds it.

import { ApiError, get, patch, post, seg, withQuery } from "./api.js";
import { announce, byId, CHANNEL_NAMES, el, fill } from "./dom.js";
import { state } from "./state.js";
import { approvedTemplates, components, placeholders, valuesOf } from "./templates.js";

/** What a condition may look at, as the team reads it. */
export const FIELDS = {
  text: "Message text",
  channel_type: "Channel",
  status: "Status",
  assigned_to: "Assignee",
  tag: "Tag",
  business_hours: "Business hours",
  contact: "Contact attribute",
};

export const OPS = {
  equals: "is",
  not_equals: "is not",
  contains: "contains",
  in: "is one of",
  not_in: "is none of",
  exists: "is present",
};

export const ACTIONS = {
  assign: "Assign",
  add_tags: "Add tags",
  remove_tags: "Remove tags",
  set_status: "Set status",
  reply: "Reply",
  send_template: "Send a template",
  note: "Add a note",
};

const STATUSES = { open: "Open", pending: "Pending", closed: "Closed" };
const HOURS = { open: "Open", closed: "Closed" };

/** The operators a field takes (the server's rule: `contains` compares text; a closed set is always present). */
function opsOf(field) {
  if (field === "text" || field === "contact") return Object.keys(OPS);
  if (field === "assigned_to" || field === "tag") return ["equals", "not_equals", "in", "not_in", "exists"];
  return ["equals", "not_equals", "in", "not_in"];
}

/** The values a field chooses among, `{value: name}`; null for free text. */
export function choicesOf(field) {
  switch (field) {
    case "channel_type":
      return CHANNEL_NAMES;
    case "status":
      return STATUSES;
    case "business_hours":
      return HOURS;
    case "assigned_to":
      return Object.fromEntries(state.members.map((m) => [m.id, m.name]));
    case "tag":
      return Object.fromEntries(state.tags.map((t) => [t.id, t.name]));
    default:
      return null;
  }
}

let editing = null;
let saved = () => {};
let serial = 0;
let cannedCodes = [];
let editorTemplates = [];

export function init(options) {
  saved = options.saved;
  byId("rule-form").addEventListener("submit", (event) => {
    event.preventDefault();
    save();
  });
  byId("rule-cancel").addEventListener("click", close);
  byId("add-condition").addEventListener("click", () => focusFirst(addCondition({ field: "text", op: "contains", value: "" })));
  byId("add-action").addEventListener("click", () => focusFirst(addAction({ type: "add_tags" })));
}

/** Opens the editor on `rule`, or on a new one when null. */
export async function open(rule) {
  editing = rule;
  const [templates] = await Promise.all([approvedTemplates(), loadCanned()]);
  editorTemplates = templates;
  fill(byId("rule-form-heading"), rule ? `Edit rule: ${rule.name}` : "New rule");
  byId("rule-name").value = rule ? rule.name : "";
  byId("rule-on").value = rule ? rule.on : "message.received";
  byId("rule-enabled").checked = rule ? rule.enabled : true;
  fill(byId("condition-rows"));
  fill(byId("action-rows"));
  for (const condition of rule ? rule.conditions : []) addCondition(condition);
  for (const action of rule ? rule.actions : [{ type: "add_tags" }]) addAction(action);
  clearFaults();
  byId("rule-form").hidden = false;
  byId("new-rule").setAttribute("aria-expanded", "true");
  byId("rule-name").focus();
}

export function close() {
  editing = null;
  byId("rule-form").hidden = true;
  byId("new-rule").setAttribute("aria-expanded", "false");
}

async function loadCanned() {
  const page = await get(withQuery("/v1/canned_responses", { limit: 100 }));
  cannedCodes = page.data.map((c) => c.short_code);
}

const focusFirst = (row) => row.querySelector("select, input, textarea")?.focus();

/** A fresh id for a control, so each label points at its own. */
const uid = (what) => `${what}-${++serial}`;

/** A labelled control: the label, then the control. */
function labelled(text, control) {
  return [el("label", { for: control.id }, text), control];
}

function select(id, path, options, chosen, multiple = false) {
  const node = el("select", { id, "data-path": path ?? undefined, multiple });
  const picked = new Set([chosen].flat().filter((v) => v !== undefined && v !== null).map(String));
  for (const [value, name] of Object.entries(options)) node.append(el("option", { value, selected: picked.has(value) }, name));
  return node;
}

/** Renumbers the rows' legends and the paths their controls report faults under. */
function renumber(container, kind, legend) {
  [...container.children].forEach((row, i) => {
    fill(row.querySelector("legend"), `${legend} ${i + 1}`);
    row.querySelector(".remove-row").setAttribute("aria-label", `Remove ${legend.toLowerCase()} ${i + 1}`);
    for (const node of row.querySelectorAll("[data-path]")) {
      node.dataset.path = node.dataset.path.replace(/^(conditions|actions)\[\d+\]/, `${kind}[${i}]`);
    }
  });
}

function removeButton(row, container, kind, legend) {
  const button = el("button", { type: "button", class: "remove-row" }, "Remove");
  button.addEventListener("click", () => {
    row.remove();
    renumber(container, kind, legend);
    byId(kind === "conditions" ? "add-condition" : "add-action").focus();
  });
  return button;
}

// Conditions.

function addCondition(condition) {
  const container = byId("condition-rows");
  const row = el("fieldset", { class: "rule-row condition" }, el("legend", {}, ""));
  container.append(row);
  const [field, attribute] = condition.field && condition.field.startsWith("contact.") ? ["contact", condition.field.slice(8)] : [condition.field, ""];
  conditionControls(row, container, { field, attribute, op: condition.op, value: condition.value });
  renumber(container, "conditions", "Condition");
  return row;
}

/** (Re)draws a condition's controls for its field and operator, keeping what still fits. */
function conditionControls(row, container, { field, attribute, op, value }) {
  const index = [...container.children].indexOf(row);
  const path = `conditions[${index}]`;
  const fieldSelect = select(uid("condition-field"), `${path}.field`, FIELDS, field);
  const ops = opsOf(field);
  const chosenOp = ops.includes(op) ? op : ops[0];
  const opSelect = select(uid("condition-op"), `${path}.op`, Object.fromEntries(ops.map((o) => [o, OPS[o]])), chosenOp);
  const parts = [row.querySelector("legend"), ...labelled("Field", fieldSelect)];
  if (field === "contact") {
    const key = el("input", { id: uid("condition-attribute"), type: "text", maxlength: "64", "data-path": `${path}.field`, value: attribute || "" });
    parts.push(...labelled("Attribute", key));
  }
  parts.push(...labelled("Operator", opSelect), ...valueControl(field, chosenOp, value, `${path}.value`));
  parts.push(removeButton(row, container, "conditions", "Condition"));
  fill(row, parts);
  const redraw = () => conditionControls(row, container, readCondition(row, true));
  fieldSelect.addEventListener("change", () => {
    redraw();
    row.querySelector("[data-role=field]").focus();
  });
  opSelect.addEventListener("change", () => {
    redraw();
    row.querySelector("[data-role=op]").focus();
  });
  fieldSelect.dataset.role = "field";
  opSelect.dataset.role = "op";
}

/** The control for a condition's value: a choice, several, yes or no, or text. */
function valueControl(field, op, value, path) {
  const id = uid("condition-value");
  if (op === "exists") {
    const node = select(id, path, { true: "Yes", false: "No" }, value === false ? "false" : "true");
    node.dataset.kind = "flag";
    return labelled("Value", node);
  }
  const list = op === "in" || op === "not_in";
  const choices = choicesOf(field);
  if (choices) {
    const node = select(id, path, choices, value, list);
    node.dataset.kind = list ? "many" : "one";
    return labelled(list ? "Values" : "Value", node);
  }
  const text = Array.isArray(value) ? value.join(", ") : typeof value === "string" ? value : "";
  const node = el("input", { id, type: "text", maxlength: "4096", "data-path": path, "data-kind": list ? "list" : "text", value: text });
  return labelled(list ? "Values, separated by commas" : "Value", node);
}

/** A condition as the API takes it; `draft` keeps the editor's own form (the field and attribute apart). */
function readCondition(row, draft = false) {
  const [fieldSelect, opSelect] = [row.querySelector("[data-role=field]"), row.querySelector("[data-role=op]")];
  const attribute = row.querySelector("input[id^=condition-attribute]");
  const valueNode = row.querySelector("[id^=condition-value]");
  const field = fieldSelect.value;
  let value;
  switch (valueNode.dataset.kind) {
    case "flag":
      value = valueNode.value === "true";
      break;
    case "many":
      value = [...valueNode.selectedOptions].map((o) => o.value);
      break;
    case "list":
      value = valueNode.value.split(",").map((v) => v.trim()).filter(Boolean);
      break;
    default:
      value = valueNode.value;
  }
  if (draft) return { field, attribute: attribute ? attribute.value : "", op: opSelect.value, value };
  return { field: field === "contact" ? `contact.${attribute.value.trim()}` : field, op: opSelect.value, value };
}

// Actions.

function addAction(action) {
  const container = byId("action-rows");
  const row = el("fieldset", { class: "rule-row action" }, el("legend", {}, ""));
  container.append(row);
  actionControls(row, container, action);
  renumber(container, "actions", "Action");
  return row;
}

/** (Re)draws an action's controls for its type. */
function actionControls(row, container, action) {
  const index = [...container.children].indexOf(row);
  const path = `actions[${index}]`;
  const typeSelect = select(uid("action-type"), `${path}.type`, ACTIONS, action.type);
  typeSelect.dataset.role = "type";
  const parts = [row.querySelector("legend"), ...labelled("Do", typeSelect), ...actionParameters(action, path)];
  parts.push(removeButton(row, container, "actions", "Action"));
  fill(row, parts);
  typeSelect.addEventListener("change", () => {
    actionControls(row, container, { type: typeSelect.value });
    row.querySelector("[data-role=type]").focus();
  });
  const replyWith = row.querySelector("[data-role=reply-with]");
  if (replyWith) {
    replyWith.addEventListener("change", () => {
      actionControls(row, container, readAction(row, true));
      row.querySelector("[data-role=reply-with]").focus();
    });
  }
  const template = row.querySelector("[data-role=template]");
  if (template) {
    template.addEventListener("change", () => {
      actionControls(row, container, readAction(row));
      row.querySelector("[data-role=template]").focus();
    });
  }
}

function textArea(id, path, value) {
  return el("textarea", { id, rows: "2", maxlength: "4096", "data-path": path }, value || "");
}

function actionParameters(action, path) {
  switch (action.type) {
    case "assign": {
      const members = Object.fromEntries([["round_robin", "Round robin"], ...state.members.map((m) => [m.id, m.name])]);
      return labelled("Assign to", select(uid("action-to"), `${path}.to`, members, action.to || "round_robin"));
    }
    case "add_tags":
    case "remove_tags": {
      const chosen = new Set(action.tag_ids || []);
      const box = el("fieldset", { "data-path": `${path}.tag_ids`, "data-role": "tags" }, el("legend", {}, "Tags"));
      if (!state.tags.length) box.append(el("span", { class: "meta" }, "No tags yet: add them in a conversation first."));
      for (const tag of state.tags) {
        const id = uid("action-tag");
        box.append(el("span", { class: "check" }, el("input", { type: "checkbox", id, value: tag.id, checked: chosen.has(tag.id) }), el("label", { for: id }, tag.name)));
      }
      return [box];
    }
    case "set_status":
      return labelled("Status", select(uid("action-status"), `${path}.status`, STATUSES, action.status || "pending"));
    case "reply": {
      const canned = action.canned !== undefined && action.canned !== null;
      const mode = select(uid("action-reply-with"), null, { text: "Text", canned: "Canned response" }, canned ? "canned" : "text");
      mode.dataset.role = "reply-with";
      if (canned) {
        const listId = uid("canned-codes");
        const input = el("input", { id: uid("action-canned"), type: "text", maxlength: "32", list: listId, "data-path": `${path}.canned`, value: action.canned });
        const options = el("datalist", { id: listId }, cannedCodes.map((code) => el("option", { value: code })));
        return [...labelled("Reply with", mode), ...labelled("Canned response short code", input), options];
      }
      return [...labelled("Reply with", mode), ...labelled("Reply text", textArea(uid("action-text"), `${path}.text`, action.text))];
    }
    case "send_template": {
      if (!editorTemplates.length) return [el("span", { class: "meta", "data-path": `${path}.template_id` }, "No approved template.")];
      const chosen = editorTemplates.find((t) => t.id === action.template_id) || editorTemplates[0];
      const names = Object.fromEntries(editorTemplates.map((t) => [t.id, `${t.name} (${t.language})`]));
      const picker = select(uid("action-template"), `${path}.template_id`, names, chosen.id);
      picker.dataset.role = "template";
      const values = valuesOf(action.components);
      const fields = placeholders(chosen).names.flatMap((name, i) =>
        labelled(`Value for {{${name}}}`, el("input", { id: uid("action-template-value"), type: "text", maxlength: "1024", "data-path": `${path}.components`, "data-role": "template-value", value: values[i] || "" })),
      );
      return [...labelled("Template", picker), ...fields];
    }
    default:
      return labelled("Note text", textArea(uid("action-text"), `${path}.text`, action.text));
  }
}

/** An action as the API takes it; `draft` switches a reply between text and canned. */
function readAction(row, draft = false) {
  const type = row.querySelector("[data-role=type]").value;
  const value = (prefix) => row.querySelector(`[id^=${prefix}]`)?.value;
  switch (type) {
    case "assign":
      return { type, to: value("action-to") };
    case "add_tags":
    case "remove_tags":
      return { type, tag_ids: [...row.querySelectorAll("[data-role=tags] input:checked")].map((box) => box.value) };
    case "set_status":
      return { type, status: value("action-status") };
    case "reply": {
      const mode = value("action-reply-with");
      if (draft) return mode === "canned" ? { type, canned: value("action-canned") ?? "" } : { type, text: value("action-text") ?? "" };
      return mode === "canned" ? { type, canned: value("action-canned").trim() } : { type, text: value("action-text") };
    }
    case "send_template": {
      const template = editorTemplates.find((t) => t.id === row.querySelector("[data-role=template]")?.value);
      if (!template) return { type };
      const values = [...row.querySelectorAll("[data-role=template-value]")].map((input) => input.value);
      return { type, template_id: template.id, components: components(template, values) };
    }
    default:
      return { type, text: value("action-text") };
  }
}

// Saving.

function body() {
  return {
    name: byId("rule-name").value,
    on: byId("rule-on").value,
    enabled: byId("rule-enabled").checked,
    conditions: [...byId("condition-rows").children].map((row) => readCondition(row)),
    actions: [...byId("action-rows").children].map((row) => readAction(row)),
  };
}

function clearFaults() {
  byId("rule-error").textContent = "";
  for (const node of byId("rule-form").querySelectorAll("[aria-invalid]")) {
    node.removeAttribute("aria-invalid");
    node.removeAttribute("aria-describedby");
  }
}

/** A fault's path as the editor shows it: `actions[1].text` is "Action 2, text". */
function where(path) {
  const match = /^(conditions|actions)\[(\d+)\]\.?(.*)$/.exec(String(path || ""));
  if (!match) return path;
  const row = `${match[1] === "conditions" ? "Condition" : "Action"} ${Number(match[2]) + 1}`;
  return match[3] ? `${row}, ${match[3]}` : row;
}

/** Marks the control each fault names (its path, or the closest one holding it). */
function markFaults(error) {
  for (const detail of error.details) {
    const path = String(detail.field || "");
    const candidates = [...byId("rule-form").querySelectorAll("[data-path]")];
    const node = candidates.find((c) => c.dataset.path === path) || candidates.find((c) => path.startsWith(`${c.dataset.path}[`) || path.startsWith(`${c.dataset.path}.`));
    if (node) {
      node.setAttribute("aria-invalid", "true");
      node.setAttribute("aria-describedby", "rule-error");
    }
  }
}

async function save() {
  clearFaults();
  try {
    const sent = body();
    const rule = editing ? (await patch(`/v1/rules/${seg(editing.id)}`, sent)).data : (await post("/v1/rules", sent)).data;
    announce(editing ? "Rule saved." : "Rule created.");
    close();
    await saved(rule);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    byId("rule-error").textContent = e.details.length ? `Not saved: ${e.details.map((d) => `${where(d.field)}: ${d.issue}`).join("; ")}.` : e.message;
    markFaults(e);
    byId("rule-form").querySelector("[aria-invalid=true]")?.focus();
  }
}
