// Where a seat's token lives in the browser, and the seat link that carries it elsewhere.
// A token is only ever sent in the Authorization header: the link holds it in the URL's
// fragment (#seat=p1&token=…), which a browser never sends to a server, and the page takes
// it out of the address bar as soon as it has read it.

const KEY = (game) => `risk-seat:${game}`;
const ALL = "risk-seats"; // game -> {seat, token}, in localStorage: every tab of this browser

function stored() {
  try { return JSON.parse(localStorage.getItem(ALL) || "{}") || {}; } catch { return {}; }
}

/** Keep ``seat``'s token for ``game`` in this tab and for the other tabs of this browser. */
export function keepSeat(game, seat, token) {
  const mine = { seat, token };
  sessionStorage.setItem(KEY(game), JSON.stringify(mine));
  const all = stored();
  all[game] = mine;
  try { localStorage.setItem(ALL, JSON.stringify(all)); } catch { /* private mode: this tab only */ }
}

export function forgetSeat(game) {
  sessionStorage.removeItem(KEY(game));
  const all = stored();
  delete all[game];
  try { localStorage.setItem(ALL, JSON.stringify(all)); } catch { /* nothing kept */ }
}

/** The games this browser holds a seat in (the lobby's "Play"). */
export function heldGames() {
  return new Set(Object.keys(stored()));
}

/** A seat link in the fragment: read, kept, and wiped from the address bar. */
export function seatFromFragment(game) {
  const params = new URLSearchParams(location.hash.slice(1));
  const seat = params.get("seat"), token = params.get("token");
  if (!seat || !token) return null;
  params.delete("seat");
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", location.pathname + (rest ? `#${rest}` : ""));
  keepSeat(game, seat, token);
  sessionStorage.setItem(`risk-link-shown:${game}`, "1"); // it came by the link: the holder has it
  return { seat, token };
}

/** This tab's seat in ``game``: from a seat link, this tab, or another tab of this browser. */
export function seatOf(game) {
  const linked = seatFromFragment(game);
  if (linked) return linked;
  try {
    const here = JSON.parse(sessionStorage.getItem(KEY(game)) || "null");
    if (here) return here;
  } catch { /* a broken entry: look further */ }
  return stored()[game] || null;
}

/** Whether ``token`` may travel in a seat link: an anonymous seat's own token (``rsk_``) only.
 * An account's token (``rac_``, or a sign-in's JWT) plays every seat of the account and more:
 * it stays in this browser, never in a link. */
export function linkable(token) {
  return typeof token === "string" && token.startsWith("rsk_");
}

export function seatLink(game, seat, token) {
  return `${location.origin}/games/${encodeURIComponent(game)}#seat=${encodeURIComponent(seat)}&token=${encodeURIComponent(token)}`;
}

/** Whether the seat link was shown in this tab already (it is shown once, after creating). */
export function linkShown(game) {
  const key = `risk-link-shown:${game}`;
  const shown = sessionStorage.getItem(key) === "1";
  sessionStorage.setItem(key, "1");
  return shown;
}
