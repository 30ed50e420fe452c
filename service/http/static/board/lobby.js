// The lobby: games by status, a form to start one, and a button to join an open seat;
// the finished games are the archive's, with the history's filters (finished.js).
// Signed in (signin.js), the seat you create or join is your account's (issue 49).
import { api, el } from "/board/common.js";
import { startFinished } from "/board/finished.js";
import { heldGames, keepSeat } from "/board/seat.js";
import { showWho, signedIn } from "/board/signin.js";

const STATUSES = [["open", "Waiting for players"], ["running", "Running"]];
let meta = null;

/** Seat tokens live in this browser's storage (seat.js), never in a URL sent to the server. */
export const keepToken = keepSeat;

// The form follows the chosen mode, as the engine declares it (GET /v1/modes): its
// boards, its player counts, the seats it adds (neutral armies, teams), and the rule
// options it reads with its own defaults. What the engine would refuse cannot be sent.
let modes = null;
let titles = {};
const $ = (id) => document.getElementById(id);
const modeOf = () => modes.modes.find((m) => m.name === $("mode").value);

async function start() {
  const [maps, loaded, declared] = await Promise.all([api("/v1/maps"), api("/board/meta.json"), api("/v1/modes")]);
  meta = loaded;
  modes = declared;
  titles = Object.fromEntries(maps.maps.map((m) => [m.name, m.title]));
  const mode = $("mode");
  for (const m of modes.modes) mode.append(el("option", { value: m.name, text: m.title }));
  mode.addEventListener("change", followMode);
  for (const kind of ["human", "bot", "bot"]) addSeat(kind);
  $("add-seat").addEventListener("click", () => { addSeat("bot"); followSeats(); });
  $("remove-seat").addEventListener("click", () => {
    const rows = document.querySelectorAll(".seat");
    if (rows.length > modeOf().players[0]) rows[rows.length - 1].remove();
    followSeats();
  });
  $("seats").addEventListener("change", followSeats);
  followMode();
  $("create").addEventListener("submit", create);
  $("token-play").addEventListener("submit", playWithToken);
  showAccount();
  const finished = startFinished().catch((failure) => { $("filters-error").textContent = failure.message; });
  await Promise.all([refresh(), finished]);
  // A linked search (/?player=Ada#finished): the browser scrolled there before the page grew.
  if (location.hash === "#finished") $("finished").scrollIntoView();
  setInterval(refresh, 5000);
}

function addSeat(kind) {
  const fieldset = $("seats");
  const count = fieldset.querySelectorAll(".seat").length;
  const n = count + 1;
  const kindSelect = el("select", { name: "kind", "aria-label": `seat ${n} kind` },
    ...["human", "bot", "open"].map((k) => el("option", { value: k, text: k === "human" ? "me" : k === "open" ? "open seat" : "bot", selected: k === kind })));
  const levels = (meta.levels || []).map((l) => el("option", { value: `level:${l.level}`, text: `${l.level} (${l.bot})` }));
  const bot = el("select", { name: "bot", "aria-label": `seat ${n} bot` }, ...meta.bots.map((b) => el("option", { value: b, text: b })), ...levels);
  const name = el("input", { name: "name", "aria-label": `seat ${n} name`, placeholder: "name", maxlength: 40, size: 12 });
  const team = el("select", { name: "team", "aria-label": `seat ${n} team`, class: "team" });
  const row = el("div", { class: "seat" }, el("span", { text: `p${n}` }), kindSelect, bot, name, team);
  const follow = () => { bot.hidden = kindSelect.value !== "bot"; };
  kindSelect.addEventListener("change", follow);
  follow();
  fieldset.append(row);
}

/** A new mode: its board, its seat count within bounds, its options with its defaults. */
function followMode() {
  const mode = modeOf();
  const board = $("board");
  board.replaceChildren(...mode.boards.map((name) => el("option", { value: name, text: titles[name] || name, selected: name === mode.board })));
  board.disabled = mode.boards.length === 1;
  const [low, high] = mode.players;
  while (document.querySelectorAll(".seat").length < low) addSeat("bot");
  const rows = document.querySelectorAll(".seat");
  for (let i = rows.length - 1; i >= high; i--) rows[i].remove();
  drawRules(mode);
  followSeats();
}

/** The seats as the mode makes them: teams where it has teams, the neutrals it adds. */
function followSeats() {
  const mode = modeOf();
  const rows = [...document.querySelectorAll(".seat")];
  const [low, high] = mode.players;
  $("add-seat").disabled = rows.length >= high;
  $("remove-seat").disabled = rows.length <= low;
  const seats = mode.seats[String(rows.length)] || [];
  const teams = [...new Set(seats.map((s) => s.team).filter(Boolean))];
  rows.forEach((row, i) => {
    const select = row.querySelector("[name=team]");
    select.hidden = !teams.length;
    if (teams.length && select.options.length !== teams.length) {
      select.replaceChildren(...teams.map((t) => el("option", { value: t, text: `team ${t}`, selected: t === seats[i]?.team })));
    }
  });
  const neutrals = seats.filter((s) => s.kind === "neutral").length;
  const words = [`${low === high ? low : `${low}–${high}`} players`];
  if (neutrals) words.push(`the game adds ${neutrals} neutral ${neutrals === 1 ? "army" : "armies"}`);
  if (teams.length) words.push(`teams ${teams.join(" and ")}, ${rows.length / teams.length} each`);
  $("mode-note").textContent = `${mode.title}: ${words.join("; ")}. ${mode.win_condition || ""}`.trim();
  const problem = formProblem(rows, teams);
  $("start").disabled = Boolean(problem);
  $("create-error").textContent = problem || "";
}

/** Why the form cannot be sent as it is (what the engine would refuse), or "". */
function formProblem(rows, teams) {
  const [low, high] = modeOf().players;
  if (rows.length < low || rows.length > high) return `This mode takes ${low}–${high} players.`;
  const me = rows.filter((row) => row.querySelector("[name=kind]").value === "human").length;
  if (me > 1) return "Only one seat can be you: make the others bots or open seats.";
  if (teams.length) {
    const count = (t) => rows.filter((row) => row.querySelector("[name=team]").value === t).length;
    if (teams.some((t) => count(t) !== rows.length / teams.length)) return `Each team needs ${rows.length / teams.length} players.`;
  }
  return "";
}

function drawRules(mode) {
  const box = $("rules");
  box.replaceChildren();
  for (const option of modes.options.filter((o) => mode.options.includes(o.name))) {
    const value = mode.defaults[option.name];
    let input;
    if (option.choices) {
      input = el("select", { name: option.name, "data-rule": option.name },
        ...option.choices.map((c) => el("option", { value: JSON.stringify(c), text: String(c), selected: c === value })));
    } else {
      input = el("input", { type: "number", name: option.name, "data-rule": option.name, value, min: option.bounds[0], max: option.bounds[1] });
    }
    box.append(el("label", { title: option.summary }, el("span", { text: option.name.replaceAll("_", " ") }), input, el("small", { text: option.summary })));
  }
}

function formBody() {
  const mode = modeOf();
  const seats = [...document.querySelectorAll(".seat")].map((row) => {
    const kind = row.querySelector("[name=kind]").value;
    const seat = { kind };
    if (kind === "bot") {
      const chosen = row.querySelector("[name=bot]").value;  // a bot, or "level:<name>"
      if (chosen.startsWith("level:")) seat.level = chosen.slice(6); else seat.bot = chosen;
    }
    const name = row.querySelector("[name=name]").value.trim();
    if (name) seat.name = name;
    const team = row.querySelector("[name=team]");
    if (!team.hidden && team.value) seat.team = team.value;
    return seat;
  });
  const rules = {};
  for (const input of document.querySelectorAll("[data-rule]")) {
    const option = modes.options.find((o) => o.name === input.dataset.rule);
    const value = option.choices ? JSON.parse(input.value) : Number(input.value);
    if (value !== mode.defaults[option.name]) rules[option.name] = value;
  }
  return { board: $("board").value, mode: mode.name, seats, rules };
}

/** Signed in: say so, and name the seats you take after the account unless named. */
function showAccount() {
  showWho($("who"));
  const account = signedIn();
  if (!account) return;
  const note = $("signed-in-note");
  note.hidden = false;
  note.textContent = `Signed in as ${account.name}: the seat you take is your account's, so the game is among your games.`;
  $("play-a-bot").replaceChildren(el("a", { href: "/account", text: "Play a bot in one click" }), ", and your games, on your account's page.");
  $("join-name").placeholder = account.name;
}

/** A game of this server played with a token from elsewhere (`risk dev`, another device). */
async function playWithToken(event) {
  event.preventDefault();
  const game = $("token-game").value.trim(), token = $("token-value").value.trim();
  $("token-play-error").textContent = "";
  try {
    const view = await api(`/v1/games/${encodeURIComponent(game)}`, { token });
    if (!view.viewer) throw new Error("that token holds no seat in this game");
    keepSeat(game, view.viewer, token);
    location.assign(`/games/${encodeURIComponent(game)}`);
  } catch (failure) {
    $("token-play-error").textContent = `Could not open the seat: ${failure.message}`;
  }
}

async function create(event) {
  event.preventDefault();
  const error = document.getElementById("create-error");
  error.textContent = "";
  try {
    const created = await api("/v1/games", { method: "POST", body: formBody(), token: signedIn()?.token });
    const game = created.game.game_id;
    const mine = Object.entries(created.tokens || {});
    if (mine.length) keepToken(game, mine[0][0], mine[0][1]);
    location.assign(`/games/${game}`);
  } catch (failure) {
    error.textContent = `Could not start the game: ${failure.message}`;
  }
}

async function join(game) {
  const error = document.getElementById("games-error");
  error.textContent = "";
  const name = document.getElementById("join-name").value;
  try {
    const body = name.trim() ? { name: name.trim() } : {};
    const joined = await api(`/v1/games/${game}/join`, { method: "POST", body, token: signedIn()?.token });
    keepToken(game, joined.seat, joined.token);
    location.assign(`/games/${game}`);
  } catch (failure) {
    error.textContent = `Could not join: ${failure.message}`;
  }
}

function seatsText(game) {
  return game.seats.map((s) => (s.kind === "open" ? "open seat" : s.name || (s.bot ? `${s.bot} bot` : s.seat))).join(", ");
}

/** A game's mode in words ("Lord of the Rings Risk (2002)"), with its board when not the mode's own. */
function gameWords(game) {
  const mode = modes?.modes.find((m) => m.name === game.mode);
  if (!mode) return `${titles[game.board] || game.board} · ${game.mode}`;
  return game.board === mode.board ? mode.title : `${mode.title} on ${titles[game.board] || game.board}`;
}

async function refresh() {
  const box = document.getElementById("games");
  const error = document.getElementById("games-error");
  try {
    const lists = await Promise.all(STATUSES.map(([status]) => api(`/v1/games?status=${status}&limit=50`)));
    const held = heldGames();
    const action = (game, status) => {
      if (held.has(game.game_id) && status !== "finished") return el("a", { href: `/games/${game.game_id}`, class: "play", text: "Play" });
      if (game.open_seats?.length) return el("button", { type: "button", class: "join", onclick: () => join(game.game_id), text: "Join" });
      return el("a", { href: `/games/${game.game_id}`, text: status === "finished" ? "Replay" : "Watch" });
    };
    box.replaceChildren(...STATUSES.map(([status, title], index) => {
      const games = lists[index].games;
      const rows = games.map((game) => el("tr", { "data-game": game.game_id, class: held.has(game.game_id) ? "mine" : null },
        el("td", {}, el("a", { href: `/games/${game.game_id}`, text: game.game_id })),
        el("td", { text: gameWords(game), "data-mode": game.mode }),
        el("td", { text: seatsText(game) }),
        el("td", { text: String(game.version) }),
        el("td", {}, action(game, status))));
      return el("section", { class: `games ${status}`, "data-status": status },
        el("h3", { text: `${title} (${games.length})` }),
        games.length ? el("table", {}, el("thead", {}, el("tr", {}, ...["game", "mode", "seats", "version", ""].map((h) => el("th", { text: h })))), el("tbody", {}, rows)) : el("p", { class: "empty", text: "none" }));
    }));
    error.textContent = "";
  } catch (failure) {
    error.textContent = `Could not list the games: ${failure.message}`;
  }
}

start().catch((failure) => { document.getElementById("create-error").textContent = failure.message; });
