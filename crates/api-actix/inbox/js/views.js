// Which view fills the page under the top bar: the conversations (the list, the conversation
// and its contact's panel), the reports, or the rules. The navigation marks the one shown.

import { byId } from "./dom.js";

const PAGES = { reports: "reports", rules: "rules" };
const LINKS = { inbox: "nav-inbox", reports: "nav-reports", rules: "nav-rules" };

/** Shows `name` (`inbox`, `reports` or `rules`) and hides the others. */
export function showView(name) {
  for (const [view, id] of Object.entries(PAGES)) byId(id).hidden = view !== name;
  const inbox = name === "inbox";
  byId("list-pane").hidden = !inbox;
  byId("thread-pane").hidden = !inbox;
  // The contact's panel shows again with a conversation (thread.open decides).
  if (!inbox) byId("contact-pane").hidden = true;
  for (const [view, id] of Object.entries(LINKS)) {
    if (view === name) byId(id).setAttribute("aria-current", "page");
    else byId(id).removeAttribute("aria-current");
  }
}
