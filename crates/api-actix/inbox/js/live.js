// Live updates: the agent's events from GET /v1/stream. The browser's EventSource reconnects by
// itself and sends Last-Event-ID, so the server resumes after the last event this page saw;
// after a reconnection the page reads the list and the conversation again all the same.

import { byId } from "./dom.js";

const TYPES = [
  "message.received",
  "message.sent",
  "message.updated",
  "activity.created",
  "activity.updated",
  "contact.created",
  "contact.updated",
  "contact.deleted",
  "note.created",
  "tag.created",
  "tag.updated",
  "tag.deleted",
];

let source = null;

export function start({ onEvent, onResume }) {
  stop();
  source = new EventSource("/v1/stream", { withCredentials: true });
  let opened = false;
  source.addEventListener("open", () => {
    byId("live-state").textContent = "Live";
    byId("live-state").className = "live on";
    if (opened) onResume();
    opened = true;
  });
  source.addEventListener("error", () => {
    byId("live-state").textContent = "Reconnecting…";
    byId("live-state").className = "live off";
    // A refused stream (the session ended) is not retried by the browser: start over.
    if (source && source.readyState === EventSource.CLOSED) setTimeout(() => location.reload(), 3000);
  });
  for (const type of TYPES) {
    source.addEventListener(type, (message) => {
      try {
        onEvent(JSON.parse(message.data));
      } catch {
        // A frame the page cannot read changes nothing on it.
      }
    });
  }
}

export function stop() {
  if (source) source.close();
  source = null;
}
