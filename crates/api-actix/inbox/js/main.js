// The inbox's entry point: finds out whether a member is signed in, walks them through signing
// in and replacing a one-time password, then starts the list, the conversation and the stream,
// and shows the view the address names (#/reports, #/rules, or a conversation).

import { ApiError, del, get, useSession } from "./api.js";
import { alertError, byId, clearAlert, fill } from "./dom.js";
import { changePassword, showApp, signIn } from "./signin.js";
import { state } from "./state.js";
import * as list from "./list.js";
import * as thread from "./thread.js";
import * as live from "./live.js";
import * as reports from "./reports.js";
import * as rules from "./rules.js";
import { showView } from "./views.js";

async function currentSession() {
  try {
    return (await get("/v1/session")).data;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

async function start() {
  let session = await currentSession();
  if (!session) session = await signIn();
  useSession(session);
  if (session.member.must_change_password) session = await changePassword();
  useSession(session);
  state.session = session;
  await openInbox();
}

async function openInbox() {
  showApp();
  fill(byId("me"), state.session.member.name);
  byId("sign-out").onclick = signOut;
  const [members, tags] = await Promise.all([get("/v1/members"), get("/v1/tags")]);
  state.members = members.data;
  state.tags = tags.data;
  list.init({ onOpen: (id) => (location.hash = `#/activities/${encodeURIComponent(id)}`) });
  thread.init({ onChanged: () => list.refresh() });
  reports.init();
  rules.init();
  window.addEventListener("hashchange", route);
  await Promise.all([list.refresh(), route()]);
  live.start({
    onEvent: (event) => {
      list.onEvent(event);
      thread.onEvent(event);
      rules.onEvent(event);
      if (event.type.startsWith("tag.")) refreshTags();
    },
    onResume: () => Promise.all([list.refresh(), thread.refresh()]),
  });
}

async function refreshTags() {
  state.tags = (await get("/v1/tags")).data;
  thread.tagsChanged();
}

async function route() {
  clearAlert();
  if (location.hash === "#/reports") return reports.show();
  if (location.hash === "#/rules") return rules.show();
  showView("inbox");
  const match = /^#\/activities\/([^/]+)$/.exec(location.hash);
  const id = match ? decodeURIComponent(match[1]) : null;
  list.select(id);
  await thread.open(id);
}

async function signOut() {
  live.stop();
  try {
    await del("/v1/session");
  } finally {
    useSession(null);
    location.hash = "";
    location.reload();
  }
}

window.addEventListener("unhandledrejection", (event) => alertError(event.reason));
start().catch(alertError);
