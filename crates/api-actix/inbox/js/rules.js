// The rules view: the team's automation rules in a table, each said in words, switched on and
// off in place, edited in the rule editor, deleted after a second click, and each one's runs
// (newest first, with why a run failed). Every member reads them; only an admin changes them.

import { del, get, patch, seg, withQuery } from "./api.js";
import { alertError, announce, byId, coalesced, el, fill, fullDate } from "./dom.js";
import { me } from "./state.js";
import * as editor from "./rule_editor.js";
import { showView } from "./views.js";

const EVENTS = {
  "message.received": "A contact's message arrives",
  "activity.created": "A conversation starts",
  "activity.updated": "A conversation changes",
};
const RUNS_PAGE = 20;

let rules = [];
/** The rule whose runs are shown, and how many of them are. */
let runsOf = null;
let runsShown = 0;
let refreshSoon = null;

const isAdmin = () => me().role === "admin";

export function init() {
  editor.init({ saved: (rule) => load().then(() => showRuns(rule.id)) });
  byId("new-rule").addEventListener("click", () => editor.open(null).catch(alertError));
  byId("refresh-runs").addEventListener("click", () => loadRuns().catch(alertError));
  byId("more-runs").addEventListener("click", () => loadRuns(runsShown + RUNS_PAGE).catch(alertError));
  refreshSoon = coalesced(async () => {
    // A rule's run is finished after the events its actions made: look a moment later.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await loadRuns(Math.max(runsShown, RUNS_PAGE));
  });
}

/** Shows the view in place of the conversation panes, and loads it. */
export async function show() {
  showView("rules");
  byId("new-rule").hidden = !isAdmin();
  byId("rules-admin-only").hidden = isAdmin();
  byId("rules-heading").focus();
  await load();
}

/** Events while the view is open: a conversation's change may be a rule's run, so runs are read again. */
export function onEvent(event) {
  if (byId("rules").hidden || !runsOf) return;
  if (event.type.startsWith("message.") || event.type.startsWith("activity.")) refreshSoon().catch(alertError);
}

async function load() {
  rules = (await get(withQuery("/v1/rules", { limit: 100 }))).data;
  const body = byId("rules-table").tBodies[0];
  fill(body, rules.map(row));
  byId("rules-empty").hidden = rules.length > 0;
  byId("rules-table").hidden = rules.length === 0;
  if (runsOf && !rules.some((r) => r.id === runsOf.id)) hideRuns();
}

function row(rule) {
  const enabled = el("input", { type: "checkbox", "aria-label": `${rule.name} enabled`, checked: rule.enabled, disabled: !isAdmin() });
  enabled.addEventListener("change", () => setEnabled(rule, enabled).catch(alertError));
  const manage = el("td", { class: "manage" });
  const runs = el("button", { type: "button", "aria-label": `Runs of ${rule.name}` }, "Runs");
  runs.addEventListener("click", () => showRuns(rule.id).catch(alertError));
  manage.append(runs);
  if (isAdmin()) {
    const edit = el("button", { type: "button", "aria-label": `Edit ${rule.name}` }, "Edit");
    edit.addEventListener("click", () => editor.open(rule).catch(alertError));
    const remove = el("button", { type: "button", "aria-label": `Delete ${rule.name}` }, "Delete");
    remove.addEventListener("click", () => confirmDelete(rule, manage));
    manage.append(edit, remove);
  }
  return el(
    "tr",
    { class: rule.enabled ? null : "disabled-rule" },
    el("th", { scope: "row" }, rule.name),
    el("td", {}, EVENTS[rule.on] || rule.on),
    el("td", {}, rule.conditions.length ? el("ul", {}, rule.conditions.map((c) => el("li", {}, conditionWords(c)))) : "Always"),
    el("td", {}, el("ol", {}, rule.actions.map((a) => el("li", {}, actionWords(a))))),
    el("td", {}, enabled),
    manage,
  );
}

async function setEnabled(rule, box) {
  box.disabled = true;
  try {
    await patch(`/v1/rules/${seg(rule.id)}`, { enabled: box.checked });
    announce(box.checked ? `${rule.name} is on.` : `${rule.name} is off.`);
    await load();
  } catch (e) {
    box.checked = !box.checked;
    box.disabled = false;
    throw e;
  }
}

/** A second, explicit click deletes: the row's buttons give way to the question. */
function confirmDelete(rule, cell) {
  const yes = el("button", { type: "button" }, "Delete rule");
  const no = el("button", { type: "button" }, "Keep it");
  const question = el("span", { class: "confirm", role: "group", "aria-label": `Delete ${rule.name}?` }, el("span", {}, `Delete “${rule.name}” and its runs?`), yes, no);
  const before = [...cell.childNodes];
  fill(cell, question);
  no.focus();
  no.addEventListener("click", () => {
    fill(cell, before);
    cell.querySelector(`[aria-label="Delete ${CSS.escape(rule.name)}"]`)?.focus();
  });
  yes.addEventListener("click", async () => {
    try {
      await del(`/v1/rules/${seg(rule.id)}`);
      announce(`${rule.name} deleted.`);
      if (runsOf && runsOf.id === rule.id) hideRuns();
      await load();
      byId("rules-heading").focus();
    } catch (e) {
      alertError(e);
    }
  });
}

// What a rule does, in words.

const quoted = (text) => `“${text}”`;

/** A value as the team reads it: a member's or tag's name, a channel's; the value itself otherwise. */
const nameOf = (field, value) => (editor.choicesOf(field) || {})[value] ?? value;

export function conditionWords(c) {
  const field = c.field.startsWith("contact.") ? `Contact's ${c.field.slice(8)}` : editor.FIELDS[c.field] || c.field;
  if (c.op === "exists") return `${field} ${c.value === false ? "is missing" : "is present"}`;
  const values = [c.value].flat().map((v) => nameOf(c.field, v));
  const shown = c.field === "text" || c.field.startsWith("contact.") ? values.map(quoted) : values;
  return `${field} ${editor.OPS[c.op] || c.op} ${shown.join(", ")}`;
}

export function actionWords(a) {
  const tags = (ids) => (ids || []).map((id) => nameOf("tag", id)).join(", ");
  switch (a.type) {
    case "assign":
      return a.to === "round_robin" ? "Assign by round robin" : `Assign to ${nameOf("assigned_to", a.to)}`;
    case "add_tags":
      return `Add tags: ${tags(a.tag_ids)}`;
    case "remove_tags":
      return `Remove tags: ${tags(a.tag_ids)}`;
    case "set_status":
      return `Set status to ${nameOf("status", a.status)}`;
    case "reply":
      return a.canned ? `Reply with the canned response /${a.canned}` : `Reply ${quoted(a.text)}`;
    case "send_template":
      return `Send the template ${a.template_id}`;
    default:
      return `Add the note ${quoted(a.text)}`;
  }
}

// Runs.

async function showRuns(id) {
  runsOf = rules.find((r) => r.id === id) || null;
  if (!runsOf) return hideRuns();
  fill(byId("rule-runs-heading"), `Runs of ${runsOf.name}`);
  byId("rule-runs").hidden = false;
  await loadRuns();
  byId("rule-runs-heading").focus();
}

function hideRuns() {
  runsOf = null;
  byId("rule-runs").hidden = true;
}

/** Reads the newest `count` runs (the first page unless more were shown). */
async function loadRuns(count = RUNS_PAGE) {
  if (!runsOf) return;
  const pages = [];
  for (let offset = 0; offset < count; offset += 100) pages.push(get(withQuery(`/v1/rules/${seg(runsOf.id)}/runs`, { limit: Math.min(100, count - offset), offset })));
  const answers = await Promise.all(pages);
  const runs = answers.flatMap((a) => a.data);
  const total = answers[0].pagination.total;
  runsShown = runs.length;
  fill(
    byId("runs-table").tBodies[0],
    runs.map((run) =>
      el(
        "tr",
        {},
        el("td", {}, el("time", { datetime: run.created_at }, fullDate(run.created_at))),
        el("td", { class: `outcome-${run.outcome}` }, run.outcome),
        el("td", {}, run.error || "—"),
        el("td", {}, el("code", {}, run.event_id)),
      ),
    ),
  );
  byId("runs-empty").hidden = runs.length > 0;
  byId("runs-table").hidden = runs.length === 0;
  byId("more-runs").hidden = runsShown >= total;
}
