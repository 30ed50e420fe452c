// What both pages share: calling the API, player colours and event sentences (the map: map.js).
// The page holds no rules: it draws views the API sends and offers /legal-actions.

export const SVG = "http://www.w3.org/2000/svg";

// Okabe and Ito's colours, which stay apart for the common colour blindnesses; each seat's
// colour also comes with a label, so nothing is told by colour alone.
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#7a5c3e"];
const NEUTRALS = ["#8f8f8f", "#5e5e5e", "#b5b5b5"]; // two neutrals differ in grey and hatching

/** A failed call, with the server's problem in words. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problemWords(status, problem));
    this.status = status;
    this.problem = problem;
  }
}

export function problemWords(status, problem) {
  if (!problem || typeof problem !== "object") return `the server answered ${status}`;
  const detail = problem.detail || problem.title || `error ${status}`;
  const fields = problem.errors ? " (" + Object.entries(problem.errors).map(([k, v]) => `${k}: ${[].concat(v).join(", ")}`).join("; ") + ")" : "";
  return `${detail}${fields}`;
}

/** JSON from the API; a token, when given, goes in the Authorization header only. */
export async function api(path, { method = "GET", body, token, headers = {} } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response = await fetch(path, init);
  for (let retry = 0; response.status === 429 && retry < 2; retry++) { // rate-limited: wait as told
    const wait = Math.min(5, Number(response.headers.get("Retry-After")) || 1);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    response = await fetch(path, init);
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else if (key === "style") node.style.cssText = value; // CSSOM, which a strict CSP allows (issue 54)
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) if (child) node.append(child);
  return node;
}

/** Seat id -> {colour, label, name}: the colour always comes with a short label. */
/** Neutrals are numbered N1, N2 with a hatching each; team-mates share their team's hatching. */
export function seatStyles(seats) {
  const styles = {};
  const neutrals = seats.filter((seat) => seat.kind === "neutral").length;
  const teams = [...new Set(seats.map((seat) => seat.team).filter((team) => team !== null && team !== undefined))];
  let players = 0, neutral = 0;
  seats.forEach((seat) => {
    const id = seat.id ?? seat.seat;
    const team = teams.indexOf(seat.team);
    if (seat.kind === "neutral") {
      styles[id] = { colour: NEUTRALS[neutral % NEUTRALS.length], label: neutrals > 1 ? `N${neutral + 1}` : "N", name: seat.name || id, pattern: `p-neutral-${neutral % 2}`, neutral: true };
      neutral += 1;
    } else {
      styles[id] = { colour: PALETTE[players % PALETTE.length], label: String(players + 1), name: seat.name || id };
      players += 1;
    }
    if (team >= 0) Object.assign(styles[id], { team, teamName: String(seat.team), pattern: `p-team-${team % 4}` });
  });
  return styles;
}

export function seatName(styles, seat) {
  return styles[seat]?.name ?? seat ?? "nobody";
}

// ---------------------------------------------------------------- events in words

function place(board, id) {
  return board.names[id] ?? id;
}

function dice(list) {
  return (list || []).join(" ");
}

/** A Lord of the Rings adventure card by name (``board.adventures``, set from a view's catalogue). */
export function card(board, number) {
  const name = board.adventures?.[number];
  return name ? `“${name}”` : "an adventure card";
}

/** Keep the adventure cards' names on the board, for the log and the map (a view has them). */
export function nameAdventures(board, view) {
  const catalogue = view?.mode_state?.adventure?.catalogue;
  if (!catalogue || board.adventures) return;
  board.adventures = Object.fromEntries(Object.entries(catalogue).map(([n, c]) => [n, c?.name]));
}

/** One event as a sentence ("Ada attacks Kamchatka from Alaska: 6 5 3 vs 4 2 — defender loses 2"). */
export function eventText(event, styles, board) {
  const who = (seat) => seatName(styles, seat);
  const at = (id) => place(board, id);
  switch (event.type) {
    case "game_created": return `Game created on ${board.title} (${event.mode}), ${event.seats.length} seats`;
    case "order_rolled": return `Order rolled for ${event.purpose}: ${event.order.map(who).join(", ")}; ${who(event.winner)} goes first`;
    case "territories_dealt": return "Territories dealt";
    case "territory_claimed": return `${who(event.seat)} claims ${at(event.territory)}`;
    case "armies_placed": return `${who(event.seat)} places ${event.count} on ${at(event.territory)}${event.player && event.player !== event.seat ? ` for ${who(event.player)}` : ""}`;
    case "deck_shuffled": return event.reshuffle ? "The discards are shuffled into a new deck" : "The deck is shuffled";
    case "turn_started": return `Turn ${event.turn}: ${who(event.seat)} gets ${event.reinforcements} armies${event.must_trade ? " and must trade cards" : ""}`;
    case "cards_traded": return `${who(event.seat)} trades a set for ${event.armies} armies${event.bonus_armies ? ` (+${event.bonus_armies} on ${at(event.bonus_territory)})` : ""}`;
    case "attack_declared": return `${who(event.seat)} attacks ${at(event.target)} from ${at(event.source)} with ${event.dice} dice; ${who(event.defender)} chooses dice`;
    case "battle_resolved": {
      const losses = [];
      if (event.attacker_losses) losses.push(`attacker loses ${event.attacker_losses}`);
      if (event.defender_losses) losses.push(`defender loses ${event.defender_losses}`);
      return `${who(event.seat)} attacks ${at(event.target)} from ${at(event.source)}: ${dice(event.attacker_dice)} vs ${dice(event.defender_dice)} — ${losses.join(", ") || "no losses"}`;
    }
    case "territory_conquered": return `${who(event.seat)} conquers ${at(event.target)} from ${who(event.defender)}`;
    case "territory_occupied": return `${who(event.seat)} moves ${event.count} into ${at(event.target)}`;
    case "player_eliminated": return `${who(event.player)} is eliminated by ${who(event.seat)}, who takes ${event.cards.length} cards`;
    case "phase_ended": return `${who(event.seat)} ends the ${event.phase} phase`;
    case "fortified": return `${who(event.seat)} fortifies ${at(event.target)} with ${event.count} from ${at(event.source)}`;
    case "card_drawn": return `${who(event.seat)} draws a card`;
    case "turn_ended": return `${who(event.seat)} ends the turn`;
    case "player_resigned": return `${who(event.seat)} resigns`;
    case "game_finished": return `Game over: ${(event.winners || [event.winner]).map(who).join(" and ")} ${(event.winners || []).length > 1 ? "win" : "wins"} (${event.reason})`;
    // Two players with active neutrals (the cards given stay the giver's secret: -1 to others).
    case "neutral_bribed": return `${who(event.seat)} bribes ${who(event.neutral)} with ${event.cards.length} card${event.cards.length === 1 ? "" : "s"}${event.ally ? `; it is now allied with ${who(event.ally)}` : "; it is now uninvolved"}`;
    case "ally_reinforcement_rolled": return `${who(event.seat)} rolls ${event.die} for ally ${who(event.neutral)}: ${event.die} armies to place`;
    case "marker_rolled": return `Marker die for ${who(event.neutral)}: ${event.die} — ${event.die <= 4 ? (event.ally ? `now allied with ${who(event.ally)}` : "now uninvolved") : "it stays"}`;
    // Lord of the Rings Risk.
    case "leaders_called": return `Every army is placed: leaders go on, ${who(event.seat)} first`;
    case "leader_placed": return `${who(event.seat)} places a leader on ${at(event.territory)}${event.reason === "return" ? " (none was left)" : ""}`;
    case "leader_moved": return `${who(event.seat)}'s leader ${event.reason === "conquest" ? "moves in to" : "goes to"} ${at(event.target)} from ${at(event.source)}`;
    case "leader_lost": return `${who(event.seat)}'s leader falls in ${at(event.territory)} to ${who(event.by)}`;
    case "fellowship_moved": {
      const path = board.path || [];
      const where = event.step < path.length ? at(path[event.step].territory) : null;
      const roll = event.roll === null || event.roll === undefined ? "" : ` on a roll of ${event.roll}`;
      if (!where) return `The Fellowship leaves the Dead Marshes${roll}: the game is scored`;
      return event.moved ? `The Fellowship moves on to ${where}${roll}` : `The Fellowship stays in ${where}${roll}`;
    }
    case "adventure_played": return `${who(event.seat)} plays ${card(board, event.adventure)}${event.target ? ` on ${at(event.target)}` : ""}${event.source && event.target ? ` from ${at(event.source)}` : ""}`;
    case "adventure_mission_claimed": return `${who(event.seat)} fulfils the mission ${card(board, event.adventure)} at ${at(event.territory)}`;
    case "adventure_uprising_revealed": return `${who(event.seat)}'s uprising (${card(board, event.adventure)}): ${event.armies} armies rise in ${at(event.territory)}`;
    case "score_tie_rolled": return `Level on the score: dice decide for ${who(event.winner)}`;
    default: return `${event.type.replaceAll("_", " ")}${event.seat ? ` (${who(event.seat)})` : ""}`;
  }
}

/** A legal action's command as a button's words. */
export function commandText(command, board) {
  const at = (id) => place(board, id);
  switch (command.type) {
    case "claim_territory": return `Claim ${at(command.territory)}`;
    case "place_armies": return `Place on ${at(command.territory)}`;
    case "trade_cards": return `Trade cards ${command.cards.join(", ")}${command.bonus_territory ? ` (bonus on ${at(command.bonus_territory)})` : ""}`;
    case "attack": return `Attack ${at(command.target)} from ${at(command.source)}${command.dice ? ` with ${command.dice} dice` : ""}`;
    case "blitz": return `Blitz ${at(command.target)} from ${at(command.source)}`;
    case "defend": return `Defend with ${command.dice} dice`;
    case "occupy": return "Move in";
    case "fortify": return `Fortify ${at(command.target)} from ${at(command.source)}`;
    case "end_phase": return "End phase";
    case "resign": return "Resign";
    default: return command.type.replaceAll("_", " ");
  }
}

/** The board with a name lookup, fetched once per page. */
export async function loadBoard(name) {
  const board = await api(`/v1/maps/${encodeURIComponent(name)}`);
  board.names = Object.fromEntries(board.territories.map((t) => [t.id, t.name]));
  return board;
}
