// Tokens for one fight, as the person gave them.
//
// A token must never travel in a URL the server sees (logs, Referer, browser history), so it is
// given in the fragment (`/fights/f/#viewer=...` or `#gm=...`, never sent to the server), or typed
// into the form, then kept in this tab's sessionStorage and removed from the address bar.

const KEYS = ["viewer", "gm"];

function storageKey(fight, role) {
  return `woundlog:${fight}:${role}`;
}

/** Move tokens from the URL fragment into sessionStorage, and clear the fragment. */
export function takeFromFragment(fight) {
  const given = new URLSearchParams(location.hash.slice(1));
  let found = false;
  for (const role of KEYS) {
    const token = given.get(role);
    if (token) {
      sessionStorage.setItem(storageKey(fight, role), token.trim());
      found = true;
    }
  }
  if (found) history.replaceState(null, "", location.pathname + location.search);
}

export function save(fight, role, token) {
  if (token.trim()) sessionStorage.setItem(storageKey(fight, role), token.trim());
}

export function forget(fight) {
  for (const role of KEYS) sessionStorage.removeItem(storageKey(fight, role));
}

/** `{read, gm}`: the token to read with (a GM token reads too), and the GM token if given. */
export function tokens(fight) {
  const gm = sessionStorage.getItem(storageKey(fight, "gm"));
  const viewer = sessionStorage.getItem(storageKey(fight, "viewer"));
  return { read: viewer || gm, gm };
}

/** Wire the token form: on submit, keep what was typed and call `done`. */
export function askForTokens(fight, form, done) {
  form.hidden = false;
  // assigned, not added: asking again after a refused token must not start the page twice
  form.onsubmit = (event) => {
    event.preventDefault();
    for (const role of KEYS) save(fight, role, form.elements[role]?.value ?? "");
    if (!tokens(fight).read) return;
    form.hidden = true;
    done();
  };
}
