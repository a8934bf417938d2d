// WhatsApp templates as the page offers them: the approved ones (read once), the placeholders
// of a template's body, and the components a send takes for the values filled in.

import { get } from "./api.js";

let approved = null;

/** The agent's approved templates, read from the server the first time. */
export async function approvedTemplates() {
  if (!approved) approved = (await get("/v1/templates")).data.filter((t) => t.status === "APPROVED");
  return approved;
}

/** A template's body text and its placeholders' names (`1`, `2` or `order_id`), each once. */
export function placeholders(template) {
  const body = (template.components || []).find((c) => c.type === "BODY");
  const names = [];
  for (const match of ((body && body.text) || "").matchAll(/\{\{\s*([^{}\s]+)\s*\}\}/g)) if (!names.includes(match[1])) names.push(match[1]);
  return { body: (body && body.text) || "", names };
}

/** The `components` of a send: the body's parameters in placeholder order (none: an empty list). */
export function components(template, values) {
  const named = template.parameter_format === "NAMED";
  const parameters = placeholders(template).names.map((name, i) => {
    const parameter = { type: "text", text: values[i] ?? "" };
    if (named) parameter.parameter_name = name;
    return parameter;
  });
  return parameters.length ? [{ type: "body", parameters }] : [];
}

/** The values a send's `components` gave the body's placeholders, in order. */
export function valuesOf(sent) {
  const body = (sent || []).find((c) => c && c.type === "body");
  return ((body && body.parameters) || []).map((p) => (p && p.text) || "");
}
