// The account this browser is signed in as (issue 49), kept as the seat tokens are
// (seat.js): in this browser's storage, sent only in the Authorization header, never in a
// URL. Signing out forgets the account's token and every seat this browser kept with it.
import { api, el } from "/board/common.js";
import { forgetSeat, heldGames, seatOf } from "/board/seat.js";

const KEY = "risk-account"; // {token, name}, in localStorage: every tab of this browser

function read(storage) {
  try { return JSON.parse(storage.getItem(KEY) || "null"); } catch { return null; }
}

/** The signed-in account, {token, name}, or null. */
export function signedIn() {
  const kept = read(localStorage) || read(sessionStorage);
  return kept?.token && kept?.name ? kept : null;
}

/** The account a token belongs to (GET /v1/account), and what the token may do. */
export async function accountOf(token) {
  const found = await api("/v1/account", { token });
  return { ...found.account, scopes: found.scopes };
}

/** Keep ``token`` as this browser's account (after accountOf said whose it is). */
export function keepAccount(token, account) {
  const kept = JSON.stringify({ token, name: account.name });
  sessionStorage.setItem(KEY, kept);
  try { localStorage.setItem(KEY, kept); } catch { /* private mode: this tab only */ }
}

/** Forget the account, and the seats this browser kept with its token. */
export function signOut() {
  const kept = signedIn();
  if (kept) {
    for (const game of heldGames()) if (seatOf(game)?.token === kept.token) forgetSeat(game);
  }
  sessionStorage.removeItem(KEY);
  try { localStorage.removeItem(KEY); } catch { /* nothing kept */ }
}

/** The header's "Signed in as …" link (or "Sign in"), in ``box``. */
export function showWho(box) {
  const kept = signedIn();
  box.replaceChildren(kept
    ? el("a", { href: "/account", text: `Signed in as ${kept.name}`, class: "who" })
    : el("a", { href: "/account", text: "Sign in", class: "who" }));
}
