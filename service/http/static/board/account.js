// Your account (issue 49): sign in with its token or make one, play a bot in one click,
// and your games, live and finished. The token is kept by signin.js, never put in a URL.
import { ApiError, api, el } from "/board/common.js";
import { gameList, modeWords } from "/board/gamelist.js";
import { keepSeat, linkShown } from "/board/seat.js";
import { accountOf, keepAccount, showWho, signOut, signedIn } from "/board/signin.js";

const $ = (id) => document.getElementById(id);
let me = null; // {token, name, kind, scopes}
let mine = null; // the "my games" list (a page signs in once: signing out reloads it)

async function start() {
  $("signin").addEventListener("submit", signIn);
  $("register").addEventListener("submit", register);
  $("signout").addEventListener("click", () => { signOut(); location.assign("/account"); });
  $("copy-token").addEventListener("click", copyToken);
  $("token-kept").addEventListener("click", () => { $("new-token").value = ""; $("token-once").hidden = true; });
  const kept = signedIn();
  if (!kept) return showSignedOut();
  try {
    await showSignedIn(kept.token, await accountOf(kept.token));
  } catch (failure) {
    if (!(failure instanceof ApiError && failure.status === 401)) throw failure;
    signOut(); // revoked, or its account deleted: nothing left to keep
    showSignedOut("Your account token was refused (revoked, or its account deleted): sign in again.");
  }
}

function showSignedOut(why = "") {
  showWho($("who"));
  $("signed-out").hidden = false;
  $("signed-in").hidden = true;
  $("signin-error").textContent = why;
}

async function signIn(event) {
  event.preventDefault();
  const token = $("signin-token").value.trim();
  $("signin-error").textContent = "";
  try {
    const account = await accountOf(token);
    keepAccount(token, account);
    $("signin-token").value = "";
    await showSignedIn(token, account);
  } catch (failure) {
    $("signin-error").textContent = failure instanceof ApiError && failure.status === 401
      ? "That token is not an account's token (or it was revoked)."
      : `Could not sign in: ${failure.message}`;
  }
}

async function register(event) {
  event.preventDefault();
  const name = $("register-name").value.trim();
  $("register-error").textContent = "";
  try {
    const made = await api("/v1/accounts", { method: "POST", body: { name } });
    keepAccount(made.token, made.account);
    $("new-token").value = made.token; // shown once, here; the server keeps only its hash
    $("token-once").hidden = false;
    await showSignedIn(made.token, await accountOf(made.token));
    $("new-token").select();
  } catch (failure) {
    $("register-error").textContent = `Could not create the account: ${failure.message}`;
  }
}

function copyToken() {
  const field = $("new-token");
  field.select();
  const said = () => { $("copy-token").textContent = "Copied ✓"; };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(said, () => { $("copy-token").textContent = "Selected: copy it"; });
  else said();
}

async function showSignedIn(token, account) {
  me = { token, ...account };
  showWho($("who"));
  $("signed-out").hidden = true;
  $("signed-in").hidden = false;
  $("me-name").textContent = account.name;
  $("me-profile").href = `/players/${encodeURIComponent(account.name)}`;
  await drawChallenge();
  mine = gameList($("my-games"), {
    caption: `${account.name}'s games, newest first`,
    me: account.name,
    action: playOrWatch,
    empty: "No games yet: play a bot above, or start one in the lobby.",
  });
  await mine.load({ player: account.name, limit: "20" });
  setInterval(() => mine.refresh(), 10000); // a new game shows once the archive has it
}

// ---------------------------------------------------------------- play a bot

/** The modes a challenge can be (every mode: its seats are the caller and bots). */
async function drawChallenge() {
  const known = await modeWords();
  const mode = $("challenge-mode");
  if (!mode.options.length) {
    mode.replaceChildren(...known.modes.map((m) => el("option", { value: m.name, text: m.title, selected: m.name === "two_player" })));
    mode.addEventListener("change", () => followMode(known));
    $("challenge-bots").addEventListener("change", () => followBots(known));
  }
  followMode(known);
  const levels = (await api("/board/meta.json")).levels;
  const allowed = me.scopes.includes("game:create");
  $("levels").replaceChildren(...levels.map((level) => el("div", { class: "level" },
    el("button", { type: "button", class: "primary", "data-level": level.level, disabled: !allowed, onclick: () => challenge(level.level), "aria-describedby": `level-${level.level}` }, `Play ${level.level}`),
    el("small", { id: `level-${level.level}`, text: level.summary }))));
  if (!allowed) $("challenge-error").textContent = "This token may not start games (it lacks the game:create scope).";
}

function followMode(known) {
  const mode = known.modes.find((m) => m.name === $("challenge-mode").value);
  const [low, high] = mode.players;
  const counts = [];
  for (let n = low - 1; n <= high - 1; n++) counts.push(n);
  $("challenge-bots").replaceChildren(...counts.map((n) => el("option", { value: n, text: `${n} bot${n === 1 ? "" : "s"}` })));
  followBots(known);
}

function followBots(known) {
  const mode = known.modes.find((m) => m.name === $("challenge-mode").value);
  const bots = Number($("challenge-bots").value);
  $("challenge-note").textContent = `${mode.title}: you against ${bots} bot${bots === 1 ? "" : "s"} of the level you pick, on ${known.boards[mode.board]?.split(" (")[0] || mode.board}. A rated game changes your rating and the bot's.`;
}

/** One click: the game made and started (POST /v1/challenges), and its page opened in your seat. */
async function challenge(level) {
  $("challenge-error").textContent = "";
  for (const button of $("levels").querySelectorAll("button")) button.disabled = true;
  try {
    const bots = Array(Number($("challenge-bots").value)).fill(level);
    const body = { mode: $("challenge-mode").value, bots, rated: $("challenge-rated").checked };
    const made = await api("/v1/challenges", { method: "POST", body, token: me.token });
    openSeat(made.game.game_id, made.seat);
  } catch (failure) {
    $("challenge-error").textContent = `Could not start the game: ${failure.message}`;
    for (const button of $("levels").querySelectorAll("button")) button.disabled = false;
  }
}

/** The game's page, playing ``seat`` with the account's token (the account plays its seats). */
function openSeat(game, seat) {
  keepSeat(game, seat, me.token);
  linkShown(game); // the page offers a seat link once: never for the account's own token
  location.assign(`/games/${encodeURIComponent(game)}`);
}

// ---------------------------------------------------------------- my games

/** Every game listed holds a seat of the account (the history by an account's name). */
function playOrWatch(game) {
  if (game.status === "finished") return el("a", { href: `/games/${game.game_id}`, text: "Replay" });
  return el("button", { type: "button", class: "play", text: "Play", onclick: () => play(game.game_id) });
}

/** Which seat the account holds in ``game`` is the server's to say (the view's ``viewer``). */
async function play(game) {
  try {
    const view = await api(`/v1/games/${encodeURIComponent(game)}`, { token: me.token });
    if (view.viewer) openSeat(game, view.viewer);
    else location.assign(`/games/${encodeURIComponent(game)}`);
  } catch (failure) {
    $("page-error").textContent = `Could not open the game: ${failure.message}`;
  }
}

start().catch((failure) => { $("page-error").textContent = failure.message; });
