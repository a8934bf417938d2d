// Runtime checks that a reply really has the type openapi-typescript gave it (openapi-fetch
// trusts the server). Each spec names every property of a generated schema type with the JSON
// kind its type allows; tsc rejects a spec that drifts from the generated types, so a changed
// document fails here until the session is read again.
import type { components } from "./schema.js";

export type S = components["schemas"];

type Base<V> = V extends string ? "string" : V extends number ? "number" : V extends boolean ? "boolean"
  : V extends readonly unknown[] ? "array" : "object";
type KindOf<V> = `${Base<Exclude<V, null | undefined>>}${null extends V ? "|null" : ""}${undefined extends V ? "?" : ""}`;
export type Spec<T> = { [K in keyof T]-?: KindOf<T[K]> };

export function fail(message: string): never {
  throw new Error(`typescript client session: ${message}`);
}

function kindOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** Every declared property present when required and of its kind, and no undeclared one. */
export function shape<T extends object>(what: string, value: T, spec: Spec<T>): T {
  if (kindOf(value) !== "object") fail(`${what}: ${JSON.stringify(value)} is not an object`);
  const actual = new Map<string, unknown>(Object.entries(value));
  const kinds = new Map<string, unknown>(Object.entries(spec));
  for (const [key, kind] of kinds) {
    if (typeof kind !== "string") continue;
    const allowed = kind.replace(/\?$/, "").split("|");
    if (!actual.has(key)) {
      if (!kind.endsWith("?")) fail(`${what}: required \`${key}\` missing in ${JSON.stringify(value)}`);
    } else if (!allowed.includes(kindOf(actual.get(key)))) {
      fail(`${what}.${key}: ${JSON.stringify(actual.get(key))} is not ${kind}`);
    }
  }
  for (const key of actual.keys()) if (!kinds.has(key)) fail(`${what}: undeclared \`${key}\``);
  return value;
}

export function each<T extends object>(what: string, items: T[], spec: Spec<T>): T[] {
  items.forEach((item, i) => shape(`${what}[${i}]`, item, spec));
  return items;
}

export const PAGINATION: Spec<S["Pagination"]> = { total: "number", limit: "number", offset: "number", has_more: "boolean" };
export const ERROR_BODY: Spec<S["ErrorBody"]> = { error: "object" };
export const ERROR_OBJECT: Spec<S["ErrorObject"]> = { code: "string", message: "string", details: "array?", request_id: "string|null?" };
export const ERROR_DETAIL: Spec<S["ErrorDetail"]> = { field: "string", issue: "string" };
export const TAG: Spec<S["Tag"]> = {
  id: "string", name: "string", color: "string", description: "string|null?", created_at: "string", updated_at: "string",
};
export const TAG_REF: Spec<S["TagRef"]> = { id: "string", name: "string", color: "string" };
export const CHANNEL: Spec<S["Channel"]> = {
  channel_id: "string", channel_type: "string", user_id: "string|null?", parent_user_id: "string|null?", username: "string|null?",
};
export const ACTIVITY: Spec<S["Activity"]> = {
  id: "string", status: "string", profile_name: "string", channel_identifiers: "array", tags: "array",
  assigned_to: "string|null?", assignee: "object|null?", last_message: "object|null?", created_at: "string", updated_at: "string",
  unread_count: "number", first_response_due_at: "string|null?", first_responded_at: "string|null?",
};
export const ACTIVITY_DETAIL: Spec<S["ActivityDetail"]> = {
  ...ACTIVITY, contact_id: "string", channels: "array", last_inbound_at: "string|null?", carts: "array",
};
export const CART_MENTION: Spec<S["CartMention"]> = { code: "string", created_at: "string" };
export const CONTACT: Spec<S["Contact"]> = {
  id: "string", profile_name: "string", email: "string|null?", notes: "string|null?", channels: "array",
  custom_attributes: "object", created_at: "string", updated_at: "string",
};
export const CATEGORIES: Spec<S["Categories"]> = { categories: "array", total_items: "number" };
export const CATEGORY: Spec<S["Category"]> = { name: "string", count: "number" };
export const PRODUCT: Spec<S["Product"]> = {
  _id: "string", kind: "string", title: "string", description: "string", media: "array", category_tags: "array",
  currency: "string", base_price: "number", compare_at_price: "number|null?", variants: "array",
  created_at: "string", updated_at: "string",
};
export const SEARCH_RESULT: Spec<S["SearchResult"]> = {
  _id: "string", kind: "string", title: "string", currency: "string", base_price: "number", score: "number",
};
export const CART_CREATED: Spec<S["CartCreated"]> = { code: "string", expires_at: "string", url: "string|null?" };
export const CART: Spec<S["Cart"]> = {
  code: "string", created_at: "string", expires_at: "string", items: "array", currency: "string|null", total: "number|null",
};
export const CART_ITEM: Spec<S["CartItem"]> = {
  ...PRODUCT, variant: "object|null", qty: "number", unit_price: "number", line_total: "number",
};
export const VARIANT: Spec<S["Variant"]> = {
  id: "string", title: "string", price: "number", compare_at_price: "number|null?", selected_options: "array",
};
export const TEMPLATE: Spec<S["Template"]> = {
  id: "string", channel_id: "string", name: "string", language: "string", category: "string", status: "string",
  parameter_format: "string", components: "array", created_at: "string",
};
export const SEND_RESULT: Spec<S["SendResult"]> = { message_sent: "boolean", message_id: "string", parsed_message: "string" };
export const EXECUTION: Spec<S["Execution"]> = {
  id: "string", to: "string", template_id: "string", message_id: "string|null?", status: "string",
  error_message: "string|null?", sent_at: "string|null?", delivered_at: "string|null?", read_at: "string|null?",
  updated_at: "string",
};
export const MESSAGE: Spec<S["Message"]> = {
  id: "string", activity_id: "string", direction: "string", type: "string", text: "string|null?",
  media: "object|null?", location: "object|null?", email: "object|null?", attachments: "array", flow_reply: "object|null?",
  pricing: "object|null?", content: "object",
  reply_to: "string|null?", platform_message_id: "string|null?", channel: "object", line_id: "string|null?", status: "string",
  error_message: "string|null?", template_id: "string|null?", campaign_key: "string|null?", cart_code: "string|null?",
  referral: "object|null?", created_at: "string", sent_at: "string|null?", send_at: "string|null?", delivered_at: "string|null?",
  read_at: "string|null?", deleted_at: "string|null?", updated_at: "string",
};
