// Play a person (issue 49): the quick-pairing queue (POST /v1/pairing) and challenges by
// link (POST /v1/challenges with "open"). A challenge's link is this page with its id in the
// fragment (/play#challenge=ch_…), which a browser never sends to a server; whoever opens it
// takes a seat (POST /v1/challenges/{id}/accept). Every way ends on the game's page in the
// seat won: an anonymous seat's token is kept as the lobby keeps it (seat.js), an account's
// seat is played with the account's token (signin.js) and never offered as a seat link.
import { ApiError, api, el } from "/board/common.js";
import { modeWords } from "/board/gamelist.js";
import { keepSeat, linkShown } from "/board/seat.js";
import { showWho, signedIn } from "/board/signin.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 1000;
const SEEK = "risk-seek"; // this tab's seek {id, token} (sessionStorage): a reload keeps waiting
const TAKEN = (id) => `risk-challenge-seat:${id}`; // a seat taken, until its game is made
const me = signedIn(); // {token, name} or null
let known = null; // the modes and boards, in words
const polling = {}; // what this page waits for ("seek", "mine", "taken") -> its timer

async function start() {
  window.addEventListener("hashchange", () => location.reload()); // another link pasted here
  showWho($("who"));
  known = await modeWords();
  const levels = (await api("/board/meta.json")).levels;
  $("seek-level").replaceChildren(...levels.map((l) => el("option", { value: l.level, text: l.level, selected: l.level === "medium" })));
  modeChoice($("seek-mode"), $("seek-players"), 0);
  modeChoice($("open-mode"), $("open-seats"), 1);
  $("seek-name-label").hidden = Boolean(me);
  $("seek-rated-label").hidden = !me;
  $("seek").addEventListener("submit", seek);
  $("seek-cancel").addEventListener("click", cancelSeek);
  $("open").addEventListener("submit", makeLink);
  $("copy-link").addEventListener("click", copyLink);
  $("open-cancel").addEventListener("click", withdraw);
  if (!me) {
    $("link-hint").replaceChildren("A link that gives a seat of your game to whoever opens it first. ",
      el("a", { href: "/account", text: "Sign in" }), " to make one: the challenge is your account's.");
    for (const field of $("open").elements) field.disabled = true;
  }
  const linked = new URLSearchParams(location.hash.slice(1)).get("challenge");
  if (linked) return showChallenge(linked);
  const kept = read(SEEK);
  if (kept) followSeek(kept);
}

/** A mode's select, and a count select that follows it: its seats less ``fewer``. */
function modeChoice(mode, count, fewer) {
  mode.replaceChildren(...known.modes.map((m) => el("option", { value: m.name, text: m.title, selected: m.name === "two_player" })));
  const follow = () => {
    const [low, high] = known.modes.find((m) => m.name === mode.value).players;
    const counts = [];
    for (let n = Math.max(low, 2) - fewer; n <= high - fewer; n++) counts.push(n);
    count.replaceChildren(...counts.map((n) => el("option", { value: n, text: String(n) })));
  };
  mode.addEventListener("change", follow);
  follow();
}

function read(key) {
  try { return JSON.parse(sessionStorage.getItem(key) || "null"); } catch { return null; }
}

/** The game's page in ``seat``: an account's seat plays with the account's token. */
function openGame(game, seat, token) {
  for (const timer of Object.values(polling)) clearTimeout(timer);
  keepSeat(game, seat, token);
  if (me && token === me.token) linkShown(game); // (never a seat link for the account's token)
  location.assign(`/games/${encodeURIComponent(game)}`);
}

/** Call ``check`` every second until it says it is done (true); ``what`` names the wait. */
function poll(what, check) {
  clearTimeout(polling[what]);
  const again = async () => {
    try {
      if (await check()) return;
    } catch (failure) {
      $("page-error").textContent = failure.message;
    }
    polling[what] = setTimeout(again, POLL_MS);
  };
  polling[what] = setTimeout(again, POLL_MS);
}

// ---------------------------------------------------------------- quick pairing

async function seek(event) {
  event.preventDefault();
  $("seek-error").textContent = "";
  const body = {
    mode: $("seek-mode").value,
    players: Number($("seek-players").value),
    wait: Number($("seek-wait").value),
    level: $("seek-level").value,
  };
  if (me) body.rated = $("seek-rated").checked;
  else if ($("seek-name").value.trim()) body.name = $("seek-name").value.trim();
  try {
    const made = await api("/v1/pairing", { method: "POST", body, token: me?.token });
    const kept = { id: made.seek.id, token: made.token }; // an anonymous seat's token, shown once
    sessionStorage.setItem(SEEK, JSON.stringify(kept));
    showSeek(made.seek, kept);
    if (made.seek.status !== "paired") followSeek(kept);
  } catch (failure) {
    $("seek-error").textContent = `Could not join the queue: ${failure.message}`;
  }
}

function followSeek(kept) {
  $("seek-start").disabled = true;
  $("seeking").hidden = false;
  poll("seek", async () => {
    try {
      return showSeek((await api(`/v1/pairing/${encodeURIComponent(kept.id)}`)).seek, kept);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 404) return stopSeeking("That seek is gone.");
      throw failure;
    }
  });
}

/** Say what the seek is; open its game once paired. Whether there is nothing more to wait for. */
function showSeek(found, kept) {
  $("seek-start").disabled = true;
  $("seeking").hidden = false;
  if (found.status === "paired") {
    sessionStorage.removeItem(SEEK);
    $("seek-status").textContent = "Paired: opening the game…";
    openGame(found.game_id, found.seat, kept.token || me.token);
    return true;
  }
  if (found.status === "left") return stopSeeking("");
  if (found.status === "failed") return stopSeeking(`The game could not be made: ${found.error}`);
  if (found.status === "matched") {
    $("seek-status").textContent = "Paired: the game is being made…";
    return false;
  }
  const others = Math.max(0, (found.waiting || 1) - 1);
  const fill = new Date(found.fill_at).toLocaleTimeString();
  $("seek-status").textContent = `Waiting for ${found.players - 1} other player${found.players === 2 ? "" : "s"} (${others} waiting besides you); bots take the seats left at ${fill}.`;
  return false;
}

function stopSeeking(why) {
  clearTimeout(polling.seek);
  sessionStorage.removeItem(SEEK);
  $("seeking").hidden = true;
  $("seek-status").textContent = "";
  $("seek-start").disabled = false;
  $("seek-error").textContent = why;
  return true;
}

async function cancelSeek() {
  const kept = read(SEEK);
  if (!kept) return stopSeeking("");
  try {
    await api(`/v1/pairing/${encodeURIComponent(kept.id)}`, { method: "DELETE" });
    stopSeeking("");
    $("seek-status").textContent = "";
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 409) return; // paired meanwhile: the poll opens it
    $("seek-error").textContent = `Could not leave the queue: ${failure.message}`;
  }
}

// ---------------------------------------------------------------- challenges by link

async function makeLink(event) {
  event.preventDefault();
  $("open-error").textContent = "";
  const body = { open: true, open_seats: Number($("open-seats").value), mode: $("open-mode").value, rated: $("open-rated").checked };
  try {
    const made = (await api("/v1/challenges", { method: "POST", body, token: me.token })).challenge;
    $("open-link").value = `${location.origin}/play#challenge=${encodeURIComponent(made.id)}`;
    $("open-link").dataset.challenge = made.id;
    $("link-box").hidden = false;
    $("open-make").disabled = true;
    $("open-link").select();
    followMine(made.id);
  } catch (failure) {
    $("open-error").textContent = `Could not make the link: ${failure.message}`;
  }
}

/** The challenger's side: its game opens in seat p1 once every seat is taken. */
function followMine(id) {
  $("open-status").textContent = "Waiting for the seats to be taken…";
  poll("mine", async () => {
    const found = (await api(`/v1/challenges/${encodeURIComponent(id)}`, { token: me.token })).challenge;
    if (found.game_id) {
      openGame(found.game_id, "p1", me.token);
      return true;
    }
    if (found.status !== "pending") {
      $("open-status").textContent = `The challenge is ${found.status}.`;
      $("open-make").disabled = false;
      return true;
    }
    const taken = found.seats.filter((s) => s.kind === "open" && s.answer === "accepted").length;
    if (taken) $("open-status").textContent = `${taken} seat${taken === 1 ? "" : "s"} taken, ${found.open_seats} still open…`;
    return false;
  });
}

function copyLink() {
  const field = $("open-link");
  field.select();
  const said = () => { $("copy-link").textContent = "Copied ✓"; };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(said, () => { $("copy-link").textContent = "Selected: copy it"; });
  else said();
}

async function withdraw() {
  const id = $("open-link").dataset.challenge;
  clearTimeout(polling.mine);
  try {
    await api(`/v1/challenges/${encodeURIComponent(id)}`, { method: "DELETE", token: me.token });
    $("link-box").hidden = true;
    $("open-make").disabled = false;
    $("open-status").textContent = "";
  } catch (failure) {
    $("open-error").textContent = `Could not withdraw it: ${failure.message}`;
    followMine(id);
  }
}

/** Someone opened a challenge's link: what it is, and its seat to take. */
async function showChallenge(id) {
  $("taking").hidden = false;
  let found;
  try {
    found = (await api(`/v1/challenges/${encodeURIComponent(id)}`, { token: me?.token })).challenge;
  } catch (failure) {
    $("taking-what").textContent = failure instanceof ApiError && failure.status === 404
      ? "No such challenge: the link is wrong, or the challenge was forgotten."
      : `Could not read the challenge: ${failure.message}`;
    $("take").hidden = true;
    return;
  }
  const mode = known.modes.find((m) => m.name === found.mode)?.title || found.mode;
  const who = found.challenger.name || "Someone";
  $("taking-what").textContent = `${who} invites you to a ${found.rated ? "rated" : "casual"} game of ${mode}: ${found.seats.length} seats, ${found.open_seats} still open.`;
  $("take-name-label").hidden = Boolean(me);
  const taken = read(TAKEN(id));
  if (taken) return waitForGame(id, taken);
  if (me && found.challenger.name === me.name) {
    $("take").hidden = true;
    $("take-status").textContent = "This is your challenge: send its link to the others.";
    return;
  }
  if (found.game_id) return finished(`Its seats were all taken.`, found.game_id);
  if (found.status !== "pending") return finished(`The challenge is ${found.status}.`);
  if (found.rated && !me) {
    $("take-seat").disabled = true;
    $("take-error").replaceChildren("This game is rated: its seats are accounts'. ", el("a", { href: "/account", text: "Sign in" }), " first, then open the link again.");
  }
  $("take").addEventListener("submit", (event) => take(event, id));
}

function finished(why, game = null) {
  $("take").hidden = true;
  $("take-status").replaceChildren(why, ...(game ? [" ", el("a", { href: `/games/${encodeURIComponent(game)}`, text: "Watch the game" })] : []));
}

async function take(event, id) {
  event.preventDefault();
  $("take-error").textContent = "";
  const body = {};
  if (!me && $("take-name").value.trim()) body.name = $("take-name").value.trim();
  try {
    const answered = await api(`/v1/challenges/${encodeURIComponent(id)}/accept`, { method: "POST", body, token: me?.token });
    const seat = { seat: answered.seat, token: answered.token || me.token }; // a seat token is shown once
    if (answered.game) return openGame(answered.game.game_id, seat.seat, seat.token);
    sessionStorage.setItem(TAKEN(id), JSON.stringify(seat));
    waitForGame(id, seat);
  } catch (failure) {
    $("take-error").textContent = `Could not take the seat: ${failure.message}`;
  }
}

/** A seat taken: the game opens once the other seats are taken too. */
function waitForGame(id, seat) {
  $("take").hidden = true;
  $("take-status").textContent = `Your seat is ${seat.seat}: waiting for the other seats to be taken…`;
  poll("taken", async () => {
    const found = (await api(`/v1/challenges/${encodeURIComponent(id)}`, { token: me?.token })).challenge;
    if (found.game_id) {
      sessionStorage.removeItem(TAKEN(id));
      openGame(found.game_id, seat.seat, seat.token);
      return true;
    }
    if (found.status !== "pending") {
      sessionStorage.removeItem(TAKEN(id));
      finished(`The challenge is ${found.status}.`);
      return true;
    }
    return false;
  });
}

start().catch((failure) => { $("page-error").textContent = failure.message; });
