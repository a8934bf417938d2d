// The page's one way to the API: same-origin fetches that carry the session cookie, the
// anti-forgery token on every write, and the API's error shape turned into an ApiError.

let csrfToken = null;

/** Remembers the session's anti-forgery token (from the sign-in answer or GET /v1/session). */
export function useSession(session) {
  csrfToken = session ? session.csrf_token : null;
}

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    const details = Array.isArray(error.details) ? error.details : [];
    const said = details.map((d) => `${d.field}: ${d.issue}`).join("; ");
    super(said ? `${error.message || "Refused"} (${said})` : error.message || `The server answered ${status}`);
    this.status = status;
    this.code = error.code || null;
    /** Each fault the server named: `{field, issue}`. */
    this.details = details;
  }
}

/** Calls `method path` with an optional JSON body; resolves to the parsed answer (null when empty). */
export async function call(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const text = await response.text();
  let parsed = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}

export const get = (path) => call("GET", path);
export const post = (path, body) => call("POST", path, body === undefined ? {} : body);
export const patch = (path, body) => call("PATCH", path, body);
export const del = (path) => call("DELETE", path);

/** `path?query` from an object, leaving out empty values. */
export function withQuery(path, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "" && value !== false) query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** A path segment, escaped: ids come from the server, but never trusted to be URL-safe. */
export const seg = (value) => encodeURIComponent(value);
