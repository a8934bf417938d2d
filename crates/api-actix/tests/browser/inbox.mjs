// The inbox page driven like a person with a screen reader would: every control is found by
// its role and accessible name. Run by tests/api/inbox_browser.rs, which starts the server,
// seeds what this needs and passes it in the environment; exits non-zero at the first failure.

import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import assert from "node:assert/strict";
import path from "node:path";

const env = process.env;
const BASE = env.PARLEY_URL;
const [SCRIPT, IMG, JS_LINK] = JSON.parse(env.PARLEY_XSS);
const NEW_PASSWORD = "correct horse battery staple";
const started = Date.now();

const step = (name) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${name}`);
const shot = (page, name) => page.screenshot({ path: path.join(env.SCREENSHOTS, `${name}.png`), fullPage: false });

/** Waits until `check()` resolves truthy, polling; fails with `what` after `timeout` ms. */
async function until(what, check, timeout = 15000) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await check();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const browser = await chromium.launch({
  executablePath: env.CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
const page = await context.newPage();
// Generous: CI runs this beside the whole suite on two cores. The one timed promise (a new
// message within 2 s) says so where it is checked.
page.setDefaultTimeout(15000);
const problems = [];
if (env.TRACE) page.on("request", (r) => console.log(`    ${Date.now() - started} ${r.method()} ${r.url()}`));
page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
page.on("dialog", (d) => {
  problems.push(`a dialog opened: ${d.message()}`);
  d.dismiss();
});
page.on("console", (m) => {
  if (m.type() === "error" && /Content Security Policy/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
});

try {
  step("the page and its policy");
  const response = await page.goto(`${BASE}/inbox`);
  const csp = response.headers()["content-security-policy"];
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  await page.getByRole("heading", { name: "Sign in to the inbox" }).waitFor();
  await shot(page, "sign-in");

  step("a wrong password is refused");
  await page.getByLabel("Email").fill(env.PARLEY_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("Wrong email or password.").waitFor();

  step("sign in with the one-time password, then choose a new one");
  await page.getByLabel("Password", { exact: true }).fill(env.PARLEY_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Choose your password" }).waitFor();
  await page.getByLabel("Current password").fill(env.PARLEY_PASSWORD);
  await page.getByLabel("New password").fill("short");
  await page.getByRole("button", { name: "Change password" }).click();
  await page.getByText("The new password needs at least 12 characters.").waitFor();
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Change password" }).click();

  const list = page.getByRole("list", { name: "Conversations" });
  const names = () => list.locator("a .name").allTextContents();
  const listed = (what, expected) => until(`${what}: ${expected}`, async () => JSON.stringify((await names()).sort()) === JSON.stringify([...expected].sort()));
  await list.getByRole("link", { name: /Ana López/ }).waitFor();
  await page.getByText("Live", { exact: true }).waitFor();
  await shot(page, "inbox");

  step("filters: mine, unassigned, channel, status and search, unread");
  await page.getByLabel("Mine").check();
  await listed("mine and open", ["Ana López", "Emma Schmidt"]);
  await page.getByLabel("Unassigned").check();
  await until("unassigned", async () => {
    const shown = await names();
    return shown.includes("Chloé Martin") && !shown.includes("Ana López");
  });
  await page.getByLabel("All").check();
  await page.getByLabel("Channel").selectOption("instagram");
  await listed("instagram", ["Chloé Martin", "Inês Duarte"]);
  await page.getByLabel("Channel").selectOption("");
  await page.getByLabel("Status").selectOption("");
  await page.getByLabel("Search conversations").fill("Bruno");
  await listed("search", ["Bruno Costa"]);
  await page.getByLabel("Search conversations").fill("");
  await page.getByLabel("Unread only").check();
  await until("unread only", async () => {
    const links = await list.getByRole("link").count();
    return links > 0 && links === (await list.locator("a.unread").count());
  });
  await page.getByLabel("Unread only").uncheck();
  await until("everything", async () => (await names()).length >= 9);

  step("open a conversation from the keyboard");
  await list.getByRole("link", { name: /Ana López/ }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Ana López", level: 2 }).waitFor();
  const log = page.getByRole("log", { name: "Messages" });
  await log.getByText("Is this still in stock? I'd need two.").waitFor();
  await page.getByRole("complementary", { name: "Contact" }).getByText(/Cart [A-Za-z0-9]{7}/).first().waitFor();
  await shot(page, "conversation");

  step("mark read");
  const markRead = page.getByRole("button", { name: /^Mark read/ });
  if (await markRead.isEnabled()) {
    await markRead.click();
    await until("read", async () => (await markRead.textContent()) === "Mark read" && (await markRead.isDisabled()));
  }

  step("answer");
  await page.evaluate(() => (window.__sameDocument = true));
  const composer = page.getByRole("combobox", { name: "Message" });
  await composer.fill("We have two in slate, ready today.");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await log.locator("li.outbound", { hasText: "We have two in slate, ready today." }).waitFor();

  step("an inbound message appears without reloading, within 2 s");
  const inbound = JSON.parse(env.PARLEY_INBOUND);
  execFileSync(inbound[0], [...inbound.slice(1), "Perfect, I'll take both."], { stdio: "pipe" });
  const sent = Date.now();
  await log.locator("li.inbound", { hasText: "Perfect, I'll take both." }).waitFor({ timeout: 2000 });
  console.log(`    shown ${Date.now() - sent} ms after the message was stored`);
  // The list counts it unread (the conversation was marked read just before).
  await list.getByRole("link", { name: /Ana López/ }).getByLabel("1 unread").waitFor({ timeout: 2000 });
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "the page was not reloaded");

  step("a canned response by /short_code, sent with Enter");
  await composer.fill("/tha");
  await page.getByRole("option", { name: /\/thanks/ }).waitFor();
  await composer.press("Enter");
  assert.equal(await composer.inputValue(), "Thank you for your order!");
  await composer.press("Enter");
  await log.locator("li.outbound", { hasText: "Thank you for your order!" }).waitFor();

  step("a private note");
  await page.getByRole("radio", { name: "Note" }).check();
  await composer.fill("Prefers slate; call after 5 pm.");
  await page.getByRole("button", { name: "Add note" }).click();
  await log.locator("li.internal", { hasText: "Prefers slate; call after 5 pm." }).waitFor();
  await page.getByRole("radio", { name: "Reply" }).check();

  step("a product card");
  await page.getByRole("button", { name: "Product" }).click();
  await page.getByLabel("Find a product").fill("bottle");
  await page.getByRole("list", { name: "Products" }).getByRole("button").first().click();
  await log.locator("li.kind-product").first().waitFor();

  step("assign: nobody, then to me");
  await page.getByLabel("Assignee").selectOption("");
  await until("unassigned", async () => (await page.getByLabel("Assignee").inputValue()) === "");
  await page.getByRole("button", { name: "Assign to me" }).click();
  await until("assigned to me", async () => /\(you\)$/.test(await page.getByLabel("Assignee").locator("option:checked").textContent()));

  step("tags: add and remove");
  await page.getByLabel("Add tag").selectOption({ label: "Wholesale" });
  await page.getByRole("button", { name: "Add", exact: true }).click();
  const tags = page.getByRole("list", { name: "Tags on this conversation" });
  await tags.getByText("Wholesale").waitFor();
  await page.getByRole("button", { name: "Remove tag Wholesale" }).click();
  await tags.getByText("Wholesale").waitFor({ state: "detached" });

  step("close and reopen");
  await page.getByRole("button", { name: "Close", exact: true }).click();
  await page.getByRole("button", { name: "Reopen" }).waitFor();
  await list.getByRole("link", { name: /Ana López.*closed/ }).waitFor();
  await page.getByRole("button", { name: "Reopen" }).click();
  await page.getByRole("button", { name: "Close", exact: true }).waitFor();

  step("the window has closed: a template instead");
  await list.getByRole("link", { name: /Bruno Costa/ }).click();
  await page.getByRole("heading", { name: "Bruno Costa", level: 2 }).waitFor();
  await page.getByText(/send an approved template/).waitFor();
  step("  the template picker");
  assert.equal(await page.getByRole("button", { name: "Send", exact: true }).isDisabled(), true, "no free-form reply outside the window");
  await page.getByRole("button", { name: "Template" }).click();
  await page.getByLabel("Template", { exact: true }).selectOption({ label: "welcome (en_US)" });
  for (const field of await page.getByLabel(/^Value for/).all()) await field.fill("Bruno");
  step("  sending it");
  await page.getByRole("button", { name: "Send template" }).click();
  await log.locator("li.kind-template").waitFor();

  step("markup from customers shows as text and never runs");
  await page.evaluate((id) => (location.hash = `#/activities/${encodeURIComponent(id)}`), env.PARLEY_HOSTILE_ACTIVITY);
  await page.getByRole("heading", { name: IMG, level: 2, exact: true }).waitFor();
  await log.getByText(SCRIPT, { exact: true }).first().waitFor();
  await log.getByText(JS_LINK, { exact: true }).first().waitFor();
  await log.getByRole("link", { name: `Download ${IMG}` }).waitFor();
  await log.getByText(`Note by ${IMG}`).waitFor();
  const panel = page.getByRole("complementary", { name: "Contact" });
  await panel.getByText(SCRIPT, { exact: true }).waitFor();
  await panel.getByText(JS_LINK, { exact: true }).waitFor();
  assert.ok((await page.getByLabel("Add tag").locator("option").allTextContents()).includes(IMG), "a tag named with markup is offered as text");
  const dom = await page.evaluate(() => ({
    xss: window.__xss === undefined ? null : window.__xss,
    scripts: document.scripts.length,
    badImages: document.querySelectorAll('img[src="x"]').length,
    scriptLinks: [...document.querySelectorAll("a[href]")].filter((a) => !/^https?:/.test(a.href)).length,
  }));
  assert.deepEqual(dom, { xss: null, scripts: 1, badImages: 0, scriptLinks: 0 });
  await shot(page, "hostile");

  step("reports: charts and the table of each day, another period, the CSV");
  const history = JSON.parse(env.PARLEY_HISTORY);
  execFileSync(history[0], history.slice(1), { stdio: "pipe" });
  await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Reports" }).click();
  await page.getByRole("heading", { name: "Reports", level: 2 }).waitFor();
  const table = page.getByRole("table", { name: "Per day" });
  await until("30 days of rows", async () => (await table.getByRole("row").count()) === 31);
  const totals = page.getByRole("region", { name: "Totals for the period" });
  const openedTotal = totals.locator("div", { has: page.getByRole("term").getByText("Opened", { exact: true }) }).getByRole("definition");
  const opened = Number((await openedTotal.textContent()).replace(/\D/g, ""));
  assert.ok(opened >= 40, `the history's conversations are counted: ${opened}`);
  for (const name of ["Conversations opened and closed per day", "Messages in and out per day", "Median first response and resolution per day, in business time"]) {
    await page.getByRole("img", { name }).waitFor();
  }
  assert.ok((await page.getByRole("img", { name: "Messages in and out per day" }).locator("rect").count()) >= 60, "a bar per day and series");
  await page.getByLabel("Period", { exact: true }).selectOption({ label: "Last 7 days" });
  await until("7 days of rows", async () => (await table.getByRole("row").count()) === 8);
  const firstResponses = await table.locator("tbody tr td:nth-child(6)").allTextContents();
  assert.ok(firstResponses.some((t) => /\d/.test(t)), `median first responses shown: ${firstResponses}`);
  await shot(page, "reports");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
  assert.match(download.suggestedFilename(), /^conversations-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
  await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Conversations" }).click();
  await list.getByRole("link", { name: /Ana López/ }).waitFor();

  step("rules: written in the editor, a fault named, a run seen, switched off, edited, deleted");
  const views = page.getByRole("navigation", { name: "Views" });
  await views.getByRole("link", { name: "Rules" }).click();
  await page.getByRole("heading", { name: "Rules", level: 2 }).waitFor();
  await page.getByText("No rules yet.").waitFor();
  await page.getByRole("button", { name: "New rule" }).click();
  const editor = page.getByRole("form", { name: "New rule" });
  await editor.getByLabel("Name").fill("Refund questions");
  await editor.getByLabel("Runs on").selectOption({ label: "A contact's message arrives" });
  await editor.getByRole("button", { name: "Add condition" }).click();
  const condition = editor.getByRole("group", { name: "Condition 1" });
  await condition.getByLabel("Field").selectOption({ label: "Message text" });
  await condition.getByLabel("Operator").selectOption({ label: "contains" });
  await condition.getByLabel("Value").fill("refund");
  const tagging = editor.getByRole("group", { name: "Action 1" });
  await tagging.getByLabel("Do", { exact: true }).selectOption({ label: "Add tags" });
  await tagging.getByLabel("Follow-up").check();
  await editor.getByRole("button", { name: "Add action" }).click();
  const answering = editor.getByRole("group", { name: "Action 2" });
  await answering.getByLabel("Do", { exact: true }).selectOption({ label: "Reply" });
  await answering.getByLabel("Reply with").selectOption({ label: "Text" });
  // Left empty: the server names the fault, and the editor marks the control holding it.
  await editor.getByRole("button", { name: "Save rule" }).click();
  await editor.getByRole("alert").getByText("Not saved: Action 2, text: must not be empty.").waitFor();
  assert.equal(await answering.getByLabel("Reply text").getAttribute("aria-invalid"), "true", "the empty reply is marked");
  await shot(page, "rule-editor");
  await answering.getByLabel("Reply text").fill("We will look at your refund today.");
  await editor.getByRole("button", { name: "Save rule" }).click();
  const rulesTable = page.getByRole("table", { name: "Rules" });
  const ruleRow = rulesTable.getByRole("row", { name: /Refund questions/ });
  await ruleRow.getByText("Message text contains “refund”").waitFor();
  await ruleRow.getByText("Add tags: Follow-up").waitFor();
  await page.getByRole("heading", { name: "Runs of Refund questions" }).waitFor();
  await page.getByText("No runs yet.").waitFor();
  await shot(page, "rules");

  execFileSync(inbound[0], [...inbound.slice(1), "Can I get a refund for one of them?"], { stdio: "pipe" });
  const runs = page.getByRole("table", { name: "Runs, newest first" });
  await runs.getByRole("cell", { name: "ok", exact: true }).waitFor();
  await shot(page, "rule-runs");

  await page.getByRole("checkbox", { name: "Refund questions enabled" }).uncheck();
  await until("switched off", async () => (await rulesTable.locator("tr.disabled-rule").count()) === 1);
  await page.getByRole("button", { name: "Edit Refund questions" }).click();
  const edited = page.getByRole("form", { name: "Edit rule: Refund questions" });
  assert.equal(await edited.getByRole("group", { name: "Condition 1" }).getByLabel("Value").inputValue(), "refund", "the editor shows the rule as saved");
  assert.equal(await edited.getByLabel("Enabled").isChecked(), false);
  await edited.getByLabel("Name").fill("Refunds and returns");
  await edited.getByRole("button", { name: "Save rule" }).click();
  await rulesTable.getByRole("rowheader", { name: "Refunds and returns" }).waitFor();

  step("  a member who is not an admin reads the rules and changes none");
  const [memberEmail, memberPassword] = JSON.parse(env.PARLEY_MEMBER);
  const memberContext = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const memberPage = await memberContext.newPage();
  memberPage.on("pageerror", (e) => problems.push(`page error (member): ${e.message}`));
  await memberPage.goto(`${BASE}/inbox#/rules`);
  await memberPage.getByLabel("Email").fill(memberEmail);
  await memberPage.getByLabel("Password", { exact: true }).fill(memberPassword);
  await memberPage.getByRole("button", { name: "Sign in" }).click();
  await memberPage.getByLabel("Current password").fill(memberPassword);
  await memberPage.getByLabel("New password").fill(NEW_PASSWORD);
  await memberPage.getByRole("button", { name: "Change password" }).click();
  await memberPage.getByText("Only an admin of the team can change rules.").waitFor();
  await memberPage.getByRole("table", { name: "Rules" }).getByRole("rowheader", { name: "Refunds and returns" }).waitFor();
  assert.equal(await memberPage.getByRole("checkbox", { name: "Refunds and returns enabled" }).isDisabled(), true);
  assert.equal(await memberPage.getByRole("button", { name: /^(New rule|Edit |Delete )/ }).count(), 0, "no way to change a rule");
  await memberPage.getByRole("button", { name: "Runs of Refunds and returns" }).click();
  await memberPage.getByRole("table", { name: "Runs, newest first" }).getByRole("cell", { name: "ok", exact: true }).waitFor();
  await memberContext.close();

  await page.getByRole("button", { name: "Delete Refunds and returns" }).click();
  await page.getByRole("group", { name: "Delete Refunds and returns?" }).getByRole("button", { name: "Delete rule" }).click();
  await page.getByText("No rules yet.").waitFor();

  step("  every kind of condition and action, written by the editor as the API reads it");
  await page.getByRole("button", { name: "New rule" }).click();
  const full = page.getByRole("form", { name: "New rule" });
  await full.getByLabel("Name").fill("Everything");
  await full.getByLabel("Runs on").selectOption({ label: "A conversation changes" });
  const conditionKinds = [
    ["Channel", "is one of", (row) => row.getByLabel("Values", { exact: true }).selectOption([{ label: "WhatsApp" }, { label: "Instagram" }])],
    ["Assignee", "is present", (row) => row.getByLabel("Value", { exact: true }).selectOption({ label: "No" })],
    ["Tag", "is not", (row) => row.getByLabel("Value", { exact: true }).selectOption({ label: "VIP" })],
    ["Contact attribute", "is", async (row) => {
      await row.getByLabel("Attribute").fill("plan");
      await row.getByLabel("Value", { exact: true }).fill("gold");
    }],
    ["Business hours", "is", (row) => row.getByLabel("Value", { exact: true }).selectOption({ label: "Closed" })],
    ["Message text", "is none of", (row) => row.getByLabel("Values, separated by commas").fill("stop, unsubscribe")],
  ];
  for (const [i, [field, op, value]] of conditionKinds.entries()) {
    await full.getByRole("button", { name: "Add condition" }).click();
    const row = full.getByRole("group", { name: `Condition ${i + 1}` });
    await row.getByLabel("Field").selectOption({ label: field });
    await row.getByLabel("Operator").selectOption({ label: op });
    await value(row);
  }
  const actionKinds = [
    ["Assign", (row) => row.getByLabel("Assign to").selectOption({ label: "Round robin" })],
    ["Remove tags", (row) => row.getByLabel("Wholesale").check()],
    ["Set status", (row) => row.getByLabel("Status").selectOption({ label: "Pending" })],
    ["Reply", async (row) => {
      await row.getByLabel("Reply with").selectOption({ label: "Canned response" });
      await row.getByLabel("Canned response short code").fill("thanks");
    }],
    ["Send a template", async (row) => {
      await row.getByLabel("Template", { exact: true }).selectOption({ label: "welcome (en_US)" });
      for (const field of await row.getByLabel(/^Value for/).all()) await field.fill("friend");
    }],
    ["Add a note", (row) => row.getByLabel("Note text").fill("Changed while closed")],
  ];
  for (const [i, [kind, fillIn]] of actionKinds.entries()) {
    if (i > 0) await full.getByRole("button", { name: "Add action" }).click();
    const row = full.getByRole("group", { name: `Action ${i + 1}` });
    await row.getByLabel("Do", { exact: true }).selectOption({ label: kind });
    await fillIn(row);
  }
  await full.getByRole("button", { name: "Save rule" }).click();
  await page.getByRole("table", { name: "Rules" }).getByRole("rowheader", { name: "Everything" }).waitFor();
  const saved = async () => page.evaluate(async () => (await (await fetch("/v1/rules")).json()).data[0]);
  const written = await saved();
  const tagId = (name) => page.evaluate(async (n) => (await (await fetch("/v1/tags")).json()).data.find((t) => t.name === n).id, name);
  assert.deepEqual(written.conditions, [
    { field: "channel_type", op: "in", value: ["whatsapp", "instagram"] },
    { field: "assigned_to", op: "exists", value: false },
    { field: "tag", op: "not_equals", value: await tagId("VIP") },
    { field: "contact.plan", op: "equals", value: "gold" },
    { field: "business_hours", op: "equals", value: "closed" },
    { field: "text", op: "not_in", value: ["stop", "unsubscribe"] },
  ]);
  assert.deepEqual(written.actions.map((a) => a.type), ["assign", "remove_tags", "set_status", "reply", "send_template", "note"]);
  assert.deepEqual([written.actions[0].to, written.actions[1].tag_ids, written.actions[2].status, written.actions[3].canned, written.actions[5].text],
    ["round_robin", [await tagId("Wholesale")], "pending", "thanks", "Changed while closed"]);
  assert.ok(written.actions[4].template_id && Array.isArray(written.actions[4].components), "the template and its values");
  // Opened and saved untouched, the rule stays as it was: the editor reads what it writes.
  await page.getByRole("button", { name: "Edit Everything" }).click();
  await page.getByRole("form", { name: "Edit rule: Everything" }).getByRole("button", { name: "Save rule" }).click();
  await until("saved again", async () => (await saved()).updated_at !== written.updated_at);
  const again = await saved();
  assert.deepEqual([again.conditions, again.actions], [written.conditions, written.actions]);
  await page.getByRole("button", { name: "Delete Everything" }).click();
  await page.getByRole("group", { name: "Delete Everything?" }).getByRole("button", { name: "Delete rule" }).click();
  await page.getByText("No rules yet.").waitFor();

  step("at a phone's width: one pane at a time");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => (location.hash = ""));
  await list.getByRole("link", { name: /Ana López/ }).waitFor();
  await shot(page, "phone-list");
  await list.getByRole("link", { name: /Ana López/ }).click();
  await page.getByRole("heading", { name: "Ana López", level: 2 }).waitFor();
  assert.equal(await list.isVisible(), false, "the list makes way for the conversation");
  await shot(page, "phone-conversation");
  await page.getByRole("button", { name: "Back to conversations" }).click();
  await list.waitFor();

  step("sign out");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in to the inbox" }).waitFor();

  assert.deepEqual(problems, [], "no script error, no dialog, no policy violation");
  step("done");
} catch (e) {
  await shot(page, "failure").catch(() => {});
  console.error(`FAILED: ${e.stack || e}\nproblems seen: ${JSON.stringify(problems)}\nscreenshot: ${path.join(env.SCREENSHOTS, "failure.png")}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
