// The lobby: games by status, a form to start one, and a button to join an open seat.
import { api, el } from "/board/common.js";
import { heldGames, keepSeat } from "/board/seat.js";

const STATUSES = [["open", "Waiting for players"], ["running", "Running"], ["finished", "Finished"]];
let meta = null;

/** Seat tokens live in this browser's storage (seat.js), never in a URL sent to the server. */
export const keepToken = keepSeat;

async function start() {
  const [maps, loaded] = await Promise.all([api("/v1/maps"), api("/board/meta.json")]);
  meta = loaded;
  const board = document.getElementById("board");
  for (const map of maps.maps) board.append(el("option", { value: map.name, text: map.title }));
  const mode = document.getElementById("mode");
  for (const name of meta.modes) mode.append(el("option", { value: name, text: name.replaceAll("_", " ") }));
  mode.addEventListener("change", () => { seatsFollowMode(); teamsFollowMode(); });
  for (const kind of ["human", "bot", "bot"]) addSeat(kind);
  document.getElementById("add-seat").addEventListener("click", () => addSeat("bot"));
  document.getElementById("remove-seat").addEventListener("click", () => {
    const rows = document.querySelectorAll(".seat");
    if (rows.length > 2) rows[rows.length - 1].remove();
  });
  drawRules();
  document.getElementById("create").addEventListener("submit", create);
  await refresh();
  setInterval(refresh, 5000);
}

function addSeat(kind) {
  const fieldset = document.getElementById("seats");
  const count = fieldset.querySelectorAll(".seat").length;
  if (count >= 6) return;
  const n = count + 1;
  const kindSelect = el("select", { name: "kind", "aria-label": `seat ${n} kind` },
    ...["human", "bot", "open"].map((k) => el("option", { value: k, text: k === "human" ? "me (this tab)" : k === "open" ? "open seat" : "bot", selected: k === kind })));
  const levels = (meta.levels || []).map((l) => el("option", { value: `level:${l.level}`, text: `${l.level} (${l.bot})` }));
  const bot = el("select", { name: "bot", "aria-label": `seat ${n} bot` }, ...meta.bots.map((b) => el("option", { value: b, text: b })), ...levels);
  const name = el("input", { name: "name", "aria-label": `seat ${n} name`, placeholder: "name", maxlength: 40, size: 12 });
  const team = el("select", { name: "team", "aria-label": `seat ${n} team`, class: "team" },
    el("option", { value: "", text: "any team" }), el("option", { value: "A", text: "team A" }), el("option", { value: "B", text: "team B" }));
  const row = el("div", { class: "seat" }, el("span", { text: `p${n}` }), kindSelect, bot, name, team);
  const follow = () => { bot.hidden = kindSelect.value !== "bot"; };
  kindSelect.addEventListener("change", follow);
  follow();
  fieldset.append(row);
  teamsFollowMode();
}

/** The seats follow the mode's player count (the engine's, from meta.json). */
function seatsFollowMode() {
  const [low, high] = meta.players[document.getElementById("mode").value] || [2, 6];
  while (document.querySelectorAll(".seat").length < low) addSeat("bot");
  const rows = document.querySelectorAll(".seat");
  for (let i = rows.length - 1; i >= high; i--) rows[i].remove();
}

function teamsFollowMode() {
  const team = document.getElementById("mode").value === "team";
  for (const select of document.querySelectorAll("select.team")) select.hidden = !team;
}

function drawRules() {
  const box = document.getElementById("rules");
  for (const option of meta.rules) {
    let input;
    if (option.choices) {
      input = el("select", { name: option.name, "data-rule": option.name },
        ...option.choices.map((c) => el("option", { value: JSON.stringify(c), text: String(c), selected: c === option.default })));
    } else {
      input = el("input", { type: "number", name: option.name, "data-rule": option.name, value: option.default, min: option.bounds[0], max: option.bounds[1] });
    }
    box.append(el("label", { title: option.summary }, el("span", { text: option.name.replaceAll("_", " ") }), input, el("small", { text: option.summary })));
  }
}

function formBody() {
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
    const option = meta.rules.find((o) => o.name === input.dataset.rule);
    const value = option.choices ? JSON.parse(input.value) : Number(input.value);
    if (value !== option.default) rules[option.name] = value;
  }
  return { board: document.getElementById("board").value, mode: document.getElementById("mode").value, seats, rules };
}

async function create(event) {
  event.preventDefault();
  const error = document.getElementById("create-error");
  error.textContent = "";
  try {
    const created = await api("/v1/games", { method: "POST", body: formBody() });
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
    const joined = await api(`/v1/games/${game}/join`, { method: "POST", body: name.trim() ? { name: name.trim() } : {} });
    keepToken(game, joined.seat, joined.token);
    location.assign(`/games/${game}`);
  } catch (failure) {
    error.textContent = `Could not join: ${failure.message}`;
  }
}

function seatsText(game) {
  return game.seats.map((s) => (s.kind === "open" ? "open seat" : s.name || (s.bot ? `${s.bot} bot` : s.seat))).join(", ");
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
        el("td", { text: `${game.board} · ${game.mode}` }),
        el("td", { text: seatsText(game) }),
        el("td", { text: String(game.version) }),
        el("td", {}, action(game, status))));
      return el("section", { class: `games ${status}`, "data-status": status },
        el("h3", { text: `${title} (${games.length})` }),
        games.length ? el("table", {}, el("thead", {}, el("tr", {}, ...["game", "board · mode", "seats", "version", ""].map((h) => el("th", { text: h })))), el("tbody", {}, rows)) : el("p", { class: "empty", text: "none" }));
    }));
    error.textContent = "";
  } catch (failure) {
    error.textContent = `Could not list the games: ${failure.message}`;
  }
}

start().catch((failure) => { document.getElementById("create-error").textContent = failure.message; });
