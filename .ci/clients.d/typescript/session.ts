// README.md's first session, call by call, through openapi-fetch typed by the `paths` that
// openapi-typescript generates from docs/openapi.json (.ci/clients type-checks it with
// `tsc --strict` and runs it). Every reply, errors included, is checked against its generated type.
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";
import {
  ACTIVITY, ACTIVITY_DETAIL, CART, CART_CREATED, CART_ITEM, CART_MENTION, VARIANT, CATEGORIES, CATEGORY, CHANNEL, CONTACT,
  ERROR_BODY, ERROR_DETAIL, ERROR_OBJECT, EXECUTION, MESSAGE, PAGINATION, PRODUCT, SEARCH_RESULT, SEND_RESULT, TAG,
  TAG_REF, TEMPLATE, each, fail, shape, type S,
} from "./shapes.js";

function env(name: string): string {
  return process.env[name] ?? fail(`${name} is not set`);
}

/** The reply's data when it has the expected (success) status. */
async function ok<T>(
  what: string, status: number, call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (response.status !== status || data === undefined) {
    fail(`${what}: expected ${status}, got ${response.status}: ${JSON.stringify(error)}`);
  }
  console.log(`ok  ${what}: ${status}`);
  return data;
}

/** An error reply read as the documented ErrorBody, with the request id to quote to support. */
async function failure(what: string, status: number, code: string,
  call: Promise<{ data?: unknown; error?: S["ErrorBody"]; response: Response }>): Promise<S["ErrorObject"]> {
  const { data, error, response } = await call;
  if (response.status !== status || error === undefined) {
    fail(`${what}: expected ${status}, got ${response.status}: ${JSON.stringify(data)}`);
  }
  const err = shape(what, shape(what, error, ERROR_BODY).error, ERROR_OBJECT);
  each(`${what}.details`, err.details ?? [], ERROR_DETAIL);
  if (err.code !== code) fail(`${what}: expected code ${code}, got ${JSON.stringify(err)}`);
  if (typeof err.request_id !== "string" || err.request_id !== response.headers.get("x-request-id")) {
    fail(`${what}: request_id ${err.request_id} is not the X-Request-Id header`);
  }
  console.log(`ok  ${what}: ${status} ${code}`);
  return err;
}

function first<T>(what: string, items: T[]): T {
  return items[0] ?? fail(`${what}: empty`);
}

// openapi-fetch infers a call's options, which skips TypeScript's excess-property check (a
// misspelt optional field or parameter would go out, or be dropped, silently): bodies and queries
// are therefore written `satisfies` their generated type, or passed as a parameter of that type.
type Query<P extends keyof paths> =
  paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;

const url = env("PARLEY_URL");
const sk = createClient<paths>({ baseUrl: url, headers: { "X-API-Key": env("PARLEY_KEY") } });
const pk = createClient<paths>({ baseUrl: url, headers: { "X-API-Key": env("PARLEY_PUBLISHABLE_KEY") } });

async function activities(query: Query<"/v1/activities">): Promise<S["Activity"][]> {
  const page = await ok(`GET /v1/activities ${JSON.stringify(query)}`, 200,
    sk.GET("/v1/activities", { params: { query } }));
  shape("pagination", page.pagination, PAGINATION);
  for (const activity of each("activities", page.data, ACTIVITY)) each("activity.tags", activity.tags, TAG_REF);
  return page.data;
}

// The demo agent's tags, and its open conversations, five per page
each("tags", (await ok("GET /v1/tags", 200, sk.GET("/v1/tags"))).data, TAG);
const open = await activities({ status: "open", limit: 5 });
if (open.length === 0 || open.some((a) => a.status !== "open")) fail(`open activities: ${JSON.stringify(open)}`);

// Find a conversation by a piece of the contact's name, or of a phone number
for (const search of ["ana", "5512"]) {
  first(`search=${search}`, await activities({ search }));
}

// Create a tag and a contact
const tag = shape("tag", (await ok("POST /v1/tags", 201,
  sk.POST("/v1/tags", { body: { name: "Priority", color: "#7c3aed" } satisfies S["CreateTag"] }))).data, TAG);
const contact = shape("contact", (await ok("POST /v1/contacts", 201, sk.POST("/v1/contacts", {
  body: {
    channel_type: "whatsapp", channel_id: "+1 415 555 0100", profile_name: "Iris Chen", custom_attributes: { plan: "pro" },
  } satisfies S["CreateContact"],
}))).data, CONTACT);
each("contact.channels", contact.channels, CHANNEL);
if (contact.custom_attributes["plan"] !== "pro") fail(`contact: ${JSON.stringify(contact)}`);

// Take the first open conversation: tag it, assign it, close it
const act = first("open activity", await activities({ status: "open", limit: 1 })).id;
const tagged = shape("tagged", (await ok("POST /v1/activities/{id}/tags", 200, sk.POST("/v1/activities/{id}/tags", {
  params: { path: { id: act } }, body: { tag_ids: [tag.id] } satisfies S["AttachTags"],
}))).data, ACTIVITY_DETAIL);
const closed = shape("closed", (await ok("PATCH /v1/activities/{id}", 200, sk.PATCH("/v1/activities/{id}", {
  params: { path: { id: act } }, body: { status: "closed", assigned_to: "user_42" } satisfies S["UpdateActivity"],
}))).data, ACTIVITY_DETAIL);
if (!tagged.tags.some((t) => t.id === tag.id) || closed.status !== "closed" || closed.assigned_to !== "user_42") {
  fail(`tagged ${JSON.stringify(tagged)}, closed ${JSON.stringify(closed)}`);
}

// The catalog and carts also take the publishable key
const categories = shape("categories",
  (await ok("GET /v1/categories", 200, pk.GET("/v1/categories"))).data, CATEGORIES);
each("categories", categories.categories, CATEGORY);
const outdoor = await ok("GET /v1/products?tag=Outdoor&limit=2", 200,
  pk.GET("/v1/products", { params: { query: { tag: "Outdoor", limit: 2 } satisfies Query<"/v1/products"> } }));
shape("pagination", outdoor.pagination, PAGINATION);
each("products", outdoor.data, PRODUCT);
if (outdoor.data.length !== 2 || outdoor.data.some((p) => !p.category_tags.includes("Outdoor"))) {
  fail(`products: ${JSON.stringify(outdoor)}`);
}

// Search by meaning
const found = each("search results", (await ok("GET /v1/products/search?limit=3", 200, pk.GET("/v1/products/search", {
  params: { query: { q: "my feet hurt after long hikes", limit: 3 } satisfies Query<"/v1/products/search"> },
}))).data, SEARCH_RESULT);
if (found.length < 1 || found.length > 3) fail(`search results: ${JSON.stringify(found)}`);
const inOutdoor = each("search results in Outdoor", (await ok("GET /v1/products/search?tag=Outdoor&limit=3", 200,
  pk.GET("/v1/products/search", {
    params: { query: { q: "stay warm on a cold night", tag: "Outdoor", limit: 3 } satisfies Query<"/v1/products/search"> },
  }))).data, SEARCH_RESULT);
const outdoorIds = new Set((await ok("GET /v1/products?tag=Outdoor", 200,
  pk.GET("/v1/products", { params: { query: { tag: "Outdoor", limit: 100 } satisfies Query<"/v1/products"> } }))).data.map((p) => p._id));
if (inOutdoor.length < 1 || inOutdoor.length > 3 || inOutdoor.some((p) => !outdoorIds.has(p._id))) {
  fail(`search in Outdoor: ${JSON.stringify(inOutdoor)}`);
}

// A storefront hands a shopper over with a cart: two of one product's last variant
const withVariants = first("products with variants", each("products", (await ok("GET /v1/products?limit=100", 200,
  pk.GET("/v1/products", { params: { query: { limit: 100 } satisfies Query<"/v1/products"> } }))).data, PRODUCT)
  .filter((p) => p.variants.length > 0));
const chosen = each("variants", withVariants.variants, VARIANT).at(-1)!;
const product = withVariants._id;
const created = shape("cart created", (await ok("POST /v1/carts", 201,
  pk.POST("/v1/carts", { body: { items: [{ id: product, variant_id: chosen.id, qty: 2 }] } satisfies S["CreateCart"] }))).data,
  CART_CREATED);
const cart = shape("cart", (await ok("GET /v1/carts/{code}", 200,
  pk.GET("/v1/carts/{code}", { params: { path: { code: created.code } } }))).data, CART);
const items = each("cart.items", cart.items, CART_ITEM);
const line = items[0];
// Doubling is exact in binary too, so the client's own arithmetic may check the server's here.
if (items.length !== 1 || line?._id !== product || line.qty !== 2 || line.variant === null
  || shape("cart.items[0].variant", line.variant, VARIANT).id !== chosen.id || line.unit_price !== chosen.price
  || line.line_total !== 2 * chosen.price || cart.total !== line.line_total || cart.currency !== withVariants.currency) {
  fail(`cart: ${JSON.stringify(cart)}`);
}

// WhatsApp: send the sandbox line's order_update template under a campaign key
const template = first("order_update",
  each("templates", (await ok("GET /v1/templates", 200, sk.GET("/v1/templates"))).data, TEMPLATE)
    .filter((t) => t.name === "order_update"));
const text = (value: string): S["SendParameterBody"] => ({ type: "text", text: value });
// A send answers its result (200), or, with `send_at`, the scheduled message (201).
const answer = (await ok("POST /v1/templates/{id}/send", 200, sk.POST("/v1/templates/{id}/send", {
  params: { path: { id: template.id } },
  body: {
    to: "+1 415 555 0100",
    components: [
      { type: "header", parameters: [text("A-17")] },
      { type: "body", parameters: [text("Iris"), text("A-17"), text("Friday")] },
      { type: "button", sub_type: "url", index: 0, parameters: [text("A-17")] },
    ],
    campaign: { key: "readme-demo", name: "README demo" },
  } satisfies S["SendTemplate"],
}))).data;
if (!("message_sent" in answer)) fail(`a send without send_at answered ${JSON.stringify(answer)}`);
const sent = shape("send result", answer, SEND_RESULT);
const executions = each("executions", (await ok("GET /v1/campaigns/{key}/executions", 200,
  sk.GET("/v1/campaigns/{key}/executions", { params: { path: { key: "readme-demo" } } }))).data, EXECUTION);
if (!sent.message_sent || executions.map((e) => e.message_id).join() !== sent.message_id) {
  fail(`sent ${JSON.stringify(sent)}, executions ${JSON.stringify(executions)}`);
}

// Ana's timeline, her cart on her conversation, and a reply within the 24-hour window
const ana = first("Ana", await activities({ search: "5512" })).id;
const timeline = await ok("GET /v1/activities/{id}/messages?limit=5", 200,
  sk.GET("/v1/activities/{id}/messages", {
    params: { path: { id: ana }, query: { limit: 5 } satisfies Query<"/v1/activities/{id}/messages"> },
  }));
shape("pagination", timeline.pagination, PAGINATION);
first("Ana's timeline", each("messages", timeline.data, MESSAGE));
const detail = shape("Ana's activity", (await ok("GET /v1/activities/{id}", 200,
  sk.GET("/v1/activities/{id}", { params: { path: { id: ana } } }))).data, ACTIVITY_DETAIL);
first("Ana's carts", each("carts", detail.carts, CART_MENTION));
const reply = shape("reply", (await ok("POST /v1/activities/{id}/messages", 201, sk.POST("/v1/activities/{id}/messages", {
  params: { path: { id: ana } },
  body: { type: "text", text: { body: "Reserved! They are yours until tomorrow." } } satisfies S["SendReply"],
}))).data, MESSAGE);
if (reply.direction !== "outbound") fail(`reply: ${JSON.stringify(reply)}`);
const buttons = shape("button reply", (await ok("POST /v1/activities/{id}/messages (buttons)", 201, sk.POST("/v1/activities/{id}/messages", {
  params: { path: { id: ana } },
  body: {
    type: "interactive",
    interactive: {
      type: "button", body: { text: "Shall I place the order?" },
      action: { buttons: [{ type: "reply", reply: { id: "confirm", title: "Confirm order" } },
        { type: "reply", reply: { id: "size", title: "Change size" } }] },
    },
  } satisfies S["SendReply"],
}))).data, MESSAGE);
if (buttons.type !== "interactive" || buttons.text !== "Shall I place the order?") fail(`buttons: ${JSON.stringify(buttons)}`);

// Bruno never wrote: outside the window only an approved template may go out
const bruno = first("Bruno", await activities({ search: "bruno" })).id;
await failure("POST /v1/activities/{id}/messages (Bruno)", 422, "WINDOW_CLOSED", sk.POST("/v1/activities/{id}/messages", {
  params: { path: { id: bruno } }, body: { type: "text", text: { body: "Hello?" } } satisfies S["SendReply"],
}));

// Errors have one shape, with a request id to quote to support
const invalid = await failure("GET /v1/activities?limit=500", 400, "VALIDATION_ERROR",
  sk.GET("/v1/activities", { params: { query: { limit: 500 } satisfies Query<"/v1/activities"> } }));
if (!(invalid.details ?? []).some((d) => d.field === "limit")) fail(`limit=500: ${JSON.stringify(invalid)}`);
console.log("typescript client session: every call of the README session passed");
