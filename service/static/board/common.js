// What both pages share: calling the API, player colours, the map, and event sentences.
// The page holds no rules: it draws views the API sends and offers /legal-actions.

export const SVG = "http://www.w3.org/2000/svg";

// Eight colours that stay apart for common colour blindness, each with a label.
export const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
const NEUTRAL = "#8a8a8a";

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
export function seatStyles(seats) {
  const styles = {};
  seats.forEach((seat, index) => {
    const id = seat.id ?? seat.seat;
    const neutral = seat.kind === "neutral";
    styles[id] = {
      colour: neutral ? NEUTRAL : PALETTE[index % PALETTE.length],
      label: neutral ? "N" : String(index + 1),
      name: seat.name || id,
    };
  });
  return styles;
}

export function seatName(styles, seat) {
  return styles[seat]?.name ?? seat ?? "nobody";
}

// ---------------------------------------------------------------- layout

/** Where each territory goes: the board's layout file, else one computed from the borders. */
export async function boardLayout(board) {
  try {
    const response = await fetch(`/board/layouts/${encodeURIComponent(board.name)}.json`);
    if (response.ok) {
      const layout = await response.json();
      if (board.territories.every((t) => layout.territories[t.id])) return layout;
    }
  } catch { /* fall through to a computed layout */ }
  return computedLayout(board);
}

/** A force layout seeded by group, for a board that ships no coordinates. */
export function computedLayout(board, width = 1000, height = 580) {
  const groups = board.groups.map((g) => g.id);
  const points = {};
  board.territories.forEach((t, index) => {
    const g = groups.indexOf(t.group);
    const angle = (2 * Math.PI * g) / groups.length;
    points[t.id] = [width / 2 + Math.cos(angle) * width * 0.3 + (index % 7) * 9, height / 2 + Math.sin(angle) * height * 0.3 + (index % 5) * 9];
  });
  const ids = Object.keys(points);
  for (let step = 0; step < 300; step++) {
    const force = Object.fromEntries(ids.map((id) => [id, [0, 0]]));
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const [a, b] = [points[ids[i]], points[ids[j]]];
        const dx = a[0] - b[0], dy = a[1] - b[1];
        const d2 = Math.max(dx * dx + dy * dy, 1);
        const push = 4000 / d2;
        force[ids[i]][0] += dx * push / Math.sqrt(d2); force[ids[i]][1] += dy * push / Math.sqrt(d2);
        force[ids[j]][0] -= dx * push / Math.sqrt(d2); force[ids[j]][1] -= dy * push / Math.sqrt(d2);
      }
    }
    for (const [a, b] of board.borders) {
      const [p, q] = [points[a], points[b]];
      const dx = q[0] - p[0], dy = q[1] - p[1];
      force[a][0] += dx * 0.02; force[a][1] += dy * 0.02;
      force[b][0] -= dx * 0.02; force[b][1] -= dy * 0.02;
    }
    for (const id of ids) {
      points[id][0] = Math.min(width - 40, Math.max(40, points[id][0] + Math.max(-20, Math.min(20, force[id][0]))));
      points[id][1] = Math.min(height - 30, Math.max(30, points[id][1] + Math.max(-20, Math.min(20, force[id][1]))));
    }
  }
  return { board: board.name, width, height, territories: points, computed: true };
}

// ---------------------------------------------------------------- the map

const GROUP_TINTS = ["#e8f0fb", "#fbeee3", "#e9f6e6", "#f3e9f7", "#fbf7dc", "#e4f4f4", "#f7e6ea", "#eeeeee"];
const BORDER_STYLE = {
  land: { stroke: "#9a9a9a", "stroke-width": 1.5 },
  sea: { stroke: "#3a7bbf", "stroke-width": 1.5, "stroke-dasharray": "6 4" },
  bridge: { stroke: "#7a4b1e", "stroke-width": 4 },
  harbour: { stroke: "#138a8a", "stroke-width": 2, "stroke-dasharray": "2 4" },
  river: { stroke: "#6aa6e0", "stroke-width": 1, "stroke-dasharray": "1 3" },
  mountain: { stroke: "#6b5a4a", "stroke-width": 1, "stroke-dasharray": "8 3 1 3" },
};

/** The board as SVG: continents as tinted hulls, borders by kind, territories as discs. */
export function drawMap(container, board, layout, onClick) {
  container.replaceChildren();
  const root = svg("svg", { viewBox: `0 0 ${layout.width} ${layout.height}`, role: "img", "aria-label": board.title, class: "map" });
  const at = (id) => layout.territories[id];
  board.groups.forEach((group, index) => {
    const hull = convexHull(group.territories.map(at));
    root.append(svg("path", { d: roundedHull(hull, 38), fill: GROUP_TINTS[index % GROUP_TINTS.length], stroke: "#c9c9c9", class: "group" },
      svg("title", {}, document.createTextNode(`${group.name} (+${group.bonus})`))));
    const [cx, cy] = centroid(hull);
    root.append(svg("text", { x: cx, y: Math.max(12, Math.min(...hull.map((p) => p[1])) - 22), class: "group-label", "text-anchor": "middle" }, document.createTextNode(`${group.name} +${group.bonus}`)));
  });
  for (const [a, b, kind] of board.borders) {
    const [p, q] = [at(a), at(b)];
    const style = BORDER_STYLE[kind] || BORDER_STYLE.land;
    if (kind === "sea" && Math.abs(p[0] - q[0]) > layout.width * 0.6) { // a sea lane round the world
      const [west, east] = p[0] < q[0] ? [p, q] : [q, p];
      root.append(svg("line", { x1: west[0], y1: west[1], x2: 0, y2: west[1], ...style, class: `border ${kind}` }));
      root.append(svg("line", { x1: east[0], y1: east[1], x2: layout.width, y2: east[1], ...style, class: `border ${kind}` }));
    } else {
      root.append(svg("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], ...style, class: `border ${kind}` }));
    }
  }
  const nodes = {};
  for (const t of board.territories) {
    const [x, y] = at(t.id);
    const disc = svg("circle", { cx: x, cy: y, r: 17, class: "disc", fill: "#fff" });
    const armies = svg("text", { x, y: y + 5, class: "armies", "text-anchor": "middle" });
    const tag = svg("text", { x: x + 16, y: y - 12, class: "tag", "text-anchor": "middle" });
    const name = svg("text", { x, y: y + 30, class: "name", "text-anchor": "middle" }, document.createTextNode(t.name));
    const title = svg("title");
    const stacks = svg("g", { class: "stacks" }); // the team game: each seat's armies here
    const tokens = svg("text", { x: x + 19, y: y + 16, class: "tokens", "text-anchor": "start" }); // leaders, the Fellowship
    const marks = [stacks, tokens];
    if (t.stronghold) marks.push(svg("rect", { x: x - 22, y: y - 22, width: 8, height: 8, class: "stronghold" }));
    if (t.site_of_power) marks.push(svg("polygon", { points: `${x - 18},${y + 20} ${x - 13},${y + 11} ${x - 8},${y + 20}`, class: "site" }));
    const group = svg("g", { class: "territory", "data-territory": t.id, tabindex: onClick ? 0 : null, role: onClick ? "button" : null }, disc, armies, tag, name, title, ...marks);
    if (onClick) {
      group.addEventListener("click", () => onClick(t.id));
      group.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onClick(t.id); } });
    }
    nodes[t.id] = { group, disc, armies, tag, title, stacks, tokens, name: t.name, at: [x, y] };
    root.append(group);
  }
  container.append(root);
  return { root, nodes };
}

/** Colour, label and armies of every territory from a view's ``territories``. */
export function paintMap(map, territories, styles) {
  for (const [id, node] of Object.entries(map.nodes)) {
    const t = territories[id] || { owner: null, armies: 0 };
    const style = styles[t.owner];
    node.disc.setAttribute("fill", style ? style.colour : "#ffffff");
    node.disc.setAttribute("stroke", style ? "#222" : "#888");
    node.armies.textContent = t.armies ? String(t.armies) : "";
    node.armies.setAttribute("fill", style ? "#fff" : "#333");
    node.tag.textContent = style ? style.label : "";
    node.group.dataset.owner = t.owner ?? "";
    node.group.dataset.armies = String(t.armies ?? 0);
    const shared = Object.entries(t.stacks || {});
    node.stacks.replaceChildren(...(shared.length > 1 ? shared.map(([seat, n], i) => {
      const [x, y] = node.at;
      return svg("g", { "data-seat": seat },
        svg("circle", { cx: x - 16 + i * 11, cy: y + 18, r: 5.5, fill: styles[seat]?.colour || "#999", stroke: "#fff" }),
        svg("text", { x: x - 16 + i * 11, y: y + 21, class: "stack-count", "text-anchor": "middle" }, document.createTextNode(String(n))));
    }) : []));
    const stacks = shared.length ? " — " + shared.map(([s, n]) => `${seatName(styles, s)} ${n}`).join(", ") : "";
    node.title.textContent = `${node.name}: ${style ? style.name : "unclaimed"}, ${t.armies} armies${stacks}`;
  }
}

/** Tokens on the map (a mode's pieces: leaders, the Fellowship): ``{territory: [{text, title, colour}]}``. */
export function placeTokens(map, tokens) {
  for (const [id, node] of Object.entries(map.nodes)) {
    const here = tokens[id] || [];
    node.tokens.replaceChildren(...here.map((t) => svg("tspan", { fill: t.colour || "#222", class: t.kind || null }, document.createTextNode(t.text))));
    node.group.dataset.tokens = here.map((t) => t.kind).join(" ");
    if (here.length) node.title.textContent += " — " + here.map((t) => t.title).join(", ");
  }
}

function convexHull(points) {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length < 3) return pts;
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [], upper = [];
  for (const p of pts) { while (lower.length >= 2 && cross(lower.at(-2), lower.at(-1), p) <= 0) lower.pop(); lower.push(p); }
  for (const p of pts.reverse()) { while (upper.length >= 2 && cross(upper.at(-2), upper.at(-1), p) <= 0) upper.pop(); upper.push(p); }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

function centroid(points) {
  const n = points.length || 1;
  return [points.reduce((s, p) => s + p[0], 0) / n, points.reduce((s, p) => s + p[1], 0) / n];
}

/** A hull grown by ``pad`` around each point, as a path of arcs (a rounded outline). */
function roundedHull(hull, pad) {
  if (hull.length === 1) { const [x, y] = hull[0]; return `M${x - pad},${y} a${pad},${pad} 0 1,0 ${2 * pad},0 a${pad},${pad} 0 1,0 ${-2 * pad},0`; }
  const [cx, cy] = centroid(hull);
  const grown = hull.map(([x, y]) => { const dx = x - cx, dy = y - cy, d = Math.hypot(dx, dy) || 1; return [x + (dx / d) * pad, y + (dy / d) * pad]; });
  return "M" + grown.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" L") + " Z";
}

// ---------------------------------------------------------------- events in words

function place(board, id) {
  return board.names[id] ?? id;
}

function dice(list) {
  return (list || []).join(" ");
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
