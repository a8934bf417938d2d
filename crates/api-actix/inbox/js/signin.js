// The two screens before the inbox: signing in, and replacing a one-time password.

import { post } from "./api.js";
import { byId } from "./dom.js";

function showOnly(id) {
  for (const screen of ["sign-in", "password", "app"]) byId(screen).hidden = screen !== id;
}

/** Shows the sign-in form; resolves with the session once the member is in. */
export function signIn() {
  showOnly("sign-in");
  const form = byId("sign-in-form");
  const error = byId("sign-in-error");
  byId("sign-in-email").focus();
  return new Promise((resolve) => {
    form.onsubmit = async (event) => {
      event.preventDefault();
      error.textContent = "";
      const email = byId("sign-in-email").value.trim();
      const password = byId("sign-in-password").value;
      if (!email || !password) {
        error.textContent = "Enter your email and your password.";
        return;
      }
      const button = form.querySelector("button[type=submit]");
      button.disabled = true;
      try {
        const answer = await post("/v1/sign_in", { email, password });
        byId("sign-in-password").value = "";
        form.onsubmit = null;
        resolve(answer.data);
      } catch (e) {
        error.textContent = e.status === 401 ? "Wrong email or password." : e.message;
        byId("sign-in-password").select();
      } finally {
        button.disabled = false;
      }
    };
  });
}

/** Shows the password form; resolves with the session once the password is replaced. */
export function changePassword() {
  showOnly("password");
  const form = byId("password-form");
  const error = byId("password-error");
  byId("password-current").focus();
  return new Promise((resolve) => {
    form.onsubmit = async (event) => {
      event.preventDefault();
      error.textContent = "";
      const current = byId("password-current").value;
      const next = byId("password-new").value;
      if (next.length < 12) {
        error.textContent = "The new password needs at least 12 characters.";
        byId("password-new").focus();
        return;
      }
      const button = form.querySelector("button[type=submit]");
      button.disabled = true;
      try {
        const answer = await post("/v1/session/password", { current_password: current, new_password: next });
        byId("password-current").value = "";
        byId("password-new").value = "";
        form.onsubmit = null;
        resolve(answer.data);
      } catch (e) {
        error.textContent = e.message;
      } finally {
        button.disabled = false;
      }
    };
  });
}

export function showApp() {
  showOnly("app");
}
