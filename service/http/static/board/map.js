// The map: territories as shapes grouped into continents, armies as badges, the legend,
// and what just happened (the last move's arrow, both sides' dice, a conquest, an elimination).
// Shapes come from /board/shapes/NAME.json (made once by scripts/board_shapes.py from the
// board and its layout); a board without them is drawn as discs on its layout.
import { seatName, svg } from "/board/common.js";

const text = (value) => document.createTextNode(String(value));
const BADGE = 12;

/** The committed shapes of a board, or null (a board added without them). */
export async function loadShapes(board) {
  try {
    const response = await fetch(`/board/shapes/${encodeURIComponent(board.name)}.json`);
    if (!response.ok) return null;
    const shapes = await response.json();
    return board.territories.every((t) => shapes.territories[t.id]) ? shapes : null;
  } catch {
    return null;
  }
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

// ---------------------------------------------------------------- drawing the board

/** The board as SVG; returns {root, nodes, overlay, shapes} for painting and marking. */
export function drawMap(container, board, layout, shapes, onClick) {
  container.replaceChildren();
  const width = shapes?.width ?? layout.width, height = shapes?.height ?? layout.height;
  // A picture to a spectator; a group of territory buttons to a player (no buttons in an img).
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: onClick ? "group" : "img", "aria-label": board.title, class: `map ${shapes ? "shaped" : "discs"}` });
  root.append(patterns(), svg("rect", { x: 0, y: 0, width, height, class: "sea" }));
  const where = (id) => (shapes ? shapes.territories[id].badge : layout.territories[id]);
  const layers = Object.fromEntries(["coast", "land", "edges", "links", "badges", "labels", "overlay"].map((name) => [name, svg("g", { class: `layer-${name}` })]));
  if (shapes) drawShapes(layers, board, shapes);
  else drawLines(layers, board, layout);
  const nodes = {};
  for (const t of board.territories) {
    const node = territoryNode(t, where(t.id), shapes?.territories[t.id].path, onClick);
    nodes[t.id] = node;
    layers.land.append(node.group);
    layers.badges.append(node.badgeGroup);
  }
  root.append(...Object.values(layers));
  container.append(root);
  return { root, nodes, overlay: layers.overlay, width, height, board };
}

/** Continents' coasts under the land, region borders and marks over it, names on top. */
function drawShapes(layers, board, shapes) {
  for (const group of board.groups) {
    const shape = shapes.groups[group.id];
    layers.coast.append(svg("path", { d: shape.path, class: "coast" }));
    layers.edges.append(svg("path", { d: shape.path, class: "continent", "data-group": group.id }, svg("title", {}, text(`${group.name}: +${group.bonus} armies for holding all of it`))));
    const [x, y] = shape.label;
    layers.labels.append(svg("text", { x, y: y + 5, class: "group-label", "text-anchor": "middle" }, text(`${group.name} +${group.bonus}`)));
  }
  for (const barrier of shapes.barriers) layers.edges.append(svg("path", { d: barrier.path, class: "barrier" }));
  for (const edge of shapes.edges) {
    if (edge.kind !== "bridge") continue;
    const [x, y] = edge.at, [dx, dy] = edge.along;
    layers.edges.append(svg("path", { d: `M${x - dy * 9},${y + dx * 9} L${x + dy * 9},${y - dx * 9}`, class: "bridge" }, svg("title", {}, text(`bridge: ${board.names[edge.a]} – ${board.names[edge.b]}`))));
  }
  for (const link of shapes.links) {
    layers.links.append(svg("path", { d: link.path, class: `link ${link.kind}` }, svg("title", {}, text(`${linkWords[link.kind] || "border"}: ${board.names[link.a]} – ${board.names[link.b]}`))));
  }
}

const linkWords = { sea: "sea lane", harbour: "harbour route", land: "land border", bridge: "bridge" };

/** A board without shapes: its borders as lines between discs. */
function drawLines(layers, board, layout) {
  const at = (id) => layout.territories[id];
  for (const [a, b, kind] of board.borders) {
    const [p, q] = [at(a), at(b)];
    if (kind === "sea" && Math.abs(p[0] - q[0]) > layout.width * 0.6) { // a sea lane round the world
      const [west, east] = p[0] < q[0] ? [p, q] : [q, p];
      layers.links.append(svg("path", { d: `M${west[0]},${west[1]} L0,${west[1]} M${east[0]},${east[1]} L${layout.width},${east[1]}`, class: `link ${kind}` }));
    } else {
      layers.links.append(svg("path", { d: `M${p[0]},${p[1]} L${q[0]},${q[1]}`, class: `link ${kind}` }));
    }
  }
}

function territoryNode(t, [x, y], path, onClick) {
  const land = path ? svg("path", { d: path, class: "land" }) : svg("circle", { cx: x, cy: y, r: 24, class: "land" });
  const team = path ? svg("path", { d: path, class: "team-mark" }) : svg("circle", { cx: x, cy: y, r: 24, class: "team-mark" });
  const title = svg("title");
  const disc = svg("circle", { cx: x, cy: y, r: BADGE, class: "disc" });
  const armies = svg("text", { x, y: y + 4.5, class: "armies", "text-anchor": "middle" });
  // The territory takes the clicks, its army badge with it; what is drawn around the badge
  // (names, marks, tokens) lies in a layer above every territory and lets clicks through.
  const group = svg("g", { class: "territory", "data-territory": t.id, tabindex: onClick ? 0 : null, role: onClick ? "button" : null, "aria-label": t.name }, land, team, title, disc, armies);
  const tag = svg("text", { x: x + BADGE + 2, y: y - 7, class: "tag", "text-anchor": "start" });
  const name = svg("text", { x, y: y + BADGE + 11, class: "name", "text-anchor": "middle" }, text(t.name));
  const short = svg("text", { x, y: y + BADGE + 17, class: "abbr", "text-anchor": "middle", "aria-hidden": "true" }, text(abbreviation(t.name)));
  const stacks = svg("g", { class: "stacks" }); // the team game: each seat's armies here
  const tokens = svg("text", { x: x + BADGE + 2, y: y + 16, class: "tokens", "text-anchor": "start" }); // leaders, the Fellowship
  const marks = [];
  if (t.stronghold) marks.push(svg("rect", { x: x - BADGE - 11, y: y - BADGE - 3, width: 9, height: 9, class: "stronghold" }, svg("title", {}, text(`stronghold: ${t.stronghold}`))));
  if (t.site_of_power) marks.push(svg("polygon", { points: `${x - BADGE - 12},${y + 2} ${x - BADGE - 7},${y - 7} ${x - BADGE - 2},${y + 2}`, class: "site" }, svg("title", {}, text(`site of power: ${t.site_of_power}`))));
  if (t.harbour) marks.push(svg("text", { x: x - BADGE - 8, y: y + 15, class: "harbour-mark", "text-anchor": "middle" }, text("⚓")));
  const badgeGroup = svg("g", { class: "badge", "data-label": t.id }, tag, name, short, stacks, tokens, ...marks);
  if (onClick) {
    group.addEventListener("click", (e) => onClick(t.id, e));
    group.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onClick(t.id, e); } });
  }
  return { group, badgeGroup, land, team, disc, armies, tag, title, stacks, tokens, name: t.name, at: [x, y] };
}

/**
 * A name short enough to read on a phone's map: a short name whole, a long one cut to its
 * first letters ("North Africa" → "N.Afri", "Kamchatka" → "Kamcha").
 */
export function abbreviation(name) {
  const words = name.split(/[\s-]+/).filter((w) => w && !/^(of|the|and)$/i.test(w));
  if (name.length <= 7) return name;
  if (words.length === 1) return words[0].slice(0, 6);
  return words.map((w, i) => (i === words.length - 1 ? w.slice(0, 4) : w[0])).join(".");
}

/** Hatchings for neutrals and teams: a cue besides colour that survives greyscale. */
function patterns() {
  const hatch = (id, d, stroke) => svg("pattern", { id, width: 8, height: 8, patternUnits: "userSpaceOnUse" }, svg("path", { d, stroke, "stroke-width": 1.6, fill: "none" }));
  return svg("defs", {},
    hatch("p-neutral-0", "M0,8 L8,0", "#ffffff99"),
    hatch("p-neutral-1", "M0,0 L8,8 M0,4 L4,0 M4,8 L8,4", "#ffffffaa"),
    hatch("p-team-0", "M0,8 L8,0 M-2,2 L2,-2 M6,10 L10,6", "#00000055"),
    hatch("p-team-1", "M4,0 L4,8", "#00000055"),
    hatch("p-team-2", "M0,4 L8,4", "#00000055"),
    hatch("p-team-3", "M0,0 L8,8", "#00000055"),
    svg("marker", { id: "arrow-head", viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 4.5, markerHeight: 4.5, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow-head" })));
}

// ---------------------------------------------------------------- painting a view

/** Colour, label and armies of every territory from a view's ``territories``. */
export function paintMap(map, territories, styles) {
  for (const [id, node] of Object.entries(map.nodes)) {
    const t = territories[id] || { owner: null, armies: 0 };
    const style = styles[t.owner];
    node.land.setAttribute("fill", style ? style.colour : "#efe6cf");
    node.team.setAttribute("fill", style?.pattern ? `url(#${style.pattern})` : "none");
    node.disc.setAttribute("stroke", style ? style.colour : "#888");
    node.armies.textContent = t.armies ? String(t.armies) : "";
    node.tag.textContent = style ? style.label : "";
    node.group.dataset.owner = t.owner ?? "";
    node.group.dataset.armies = String(t.armies ?? 0);
    node.badgeGroup.dataset.owner = t.owner ?? "";
    const shared = Object.entries(t.stacks || {});
    node.stacks.replaceChildren(...(shared.length > 1 ? shared.map(([seat, n], i) => {
      const [x, y] = node.at;
      return svg("g", { "data-seat": seat },
        svg("circle", { cx: x - 16 + i * 11, cy: y + BADGE + 6, r: 5.5, fill: styles[seat]?.colour || "#999", stroke: "#fff" }),
        svg("text", { x: x - 16 + i * 11, y: y + BADGE + 9, class: "stack-count", "text-anchor": "middle" }, text(n)));
    }) : []));
    const stacks = shared.length ? " — " + shared.map(([s, n]) => `${seatName(styles, s)} ${n}`).join(", ") : "";
    node.title.textContent = `${node.name}: ${style ? style.name : "unclaimed"}, ${t.armies} armies${stacks}`;
    // A button's name holds the army count it shows (axe: label-content-name-mismatch).
    node.group.setAttribute("aria-label", `${node.name}, ${t.armies} ${t.armies === 1 ? "army" : "armies"}, ${style ? style.name : "unclaimed"}`);
  }
}

/** Tokens on the map (a mode's pieces: leaders, the Fellowship): ``{territory: [{text, title, colour}]}``. */
export function placeTokens(map, tokens) {
  for (const [id, node] of Object.entries(map.nodes)) {
    const here = tokens[id] || [];
    node.tokens.replaceChildren(...here.map((t) => svg("tspan", { fill: t.colour || "#222", class: t.kind || null }, text(t.text))));
    node.group.dataset.tokens = here.map((t) => t.kind).join(" ");
    if (here.length) node.title.textContent += " — " + here.map((t) => t.title).join(", ");
  }
}

// ---------------------------------------------------------------- the legend

/** Only what this board and game have: seats with their cues, and the kinds of border drawn. */
export function legend(box, map, shapes, styles, { tokens = false } = {}) {
  const items = [];
  const swatch = (style) => {
    const pattern = style.pattern ? `<rect width="22" height="14" fill="url(#${style.pattern})"/>` : "";
    return `<svg width="22" height="14" aria-hidden="true"><rect width="22" height="14" rx="2" fill="${style.colour}"/>${pattern}</svg>`;
  };
  for (const [seat, style] of Object.entries(styles)) {
    items.push(`<span class="legend-seat" data-seat="${seat}">${swatch(style)} <b>${style.label}</b> ${escape(style.name)}${style.team !== undefined ? ` <small>(team ${escape(style.teamName)})</small>` : ""}</span>`);
  }
  const kinds = new Set((shapes?.links || []).map((l) => l.kind));
  const line = (cls) => `<svg width="30" height="10" aria-hidden="true"><path d="M1,5 L29,5" class="${cls}"/></svg>`;
  if (kinds.has("sea")) items.push(`<span>${line("link sea")} sea lane</span>`);
  if (kinds.has("land")) items.push(`<span>${line("link land")} ${shapes.groups && Object.keys(shapes.groups).length && shapes.links.some((l) => l.kind === "sea") ? "border across the sea" : "border drawn as a line"}</span>`);
  if (shapes?.edges.some((e) => e.kind === "bridge")) items.push(`<span><svg width="16" height="14" aria-hidden="true"><path d="M8,1 L8,13" class="bridge"/></svg> bridge</span>`);
  if (kinds.has("harbour")) items.push(`<span>${line("link harbour")} harbour route</span>`);
  if (shapes?.barriers.length) items.push(`<span>${line("barrier")} no passage</span>`);
  const territories = map.board.territories;
  if (territories.some((t) => t.stronghold)) items.push(`<span><svg width="10" height="10" aria-hidden="true"><rect width="9" height="9" class="stronghold"/></svg> stronghold</span>`);
  if (territories.some((t) => t.site_of_power)) items.push(`<span><svg width="12" height="10" aria-hidden="true"><polygon points="0,10 5,1 10,10" class="site"/></svg> site of power</span>`);
  if (territories.some((t) => t.harbour)) items.push("<span>⚓ harbour</span>");
  if (tokens) items.push(`<span>♚ leader · <span class="fellowship-mark">◎</span> the Fellowship</span>`);
  box.innerHTML = items.join("");
}

function escape(value) {
  return String(value).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// ---------------------------------------------------------------- what just happened

/**
 * The last move on the map: ``moment`` is {kind, seat, source, target, count, battle,
 * conquered, eliminated, placed} (playback.js reads it from the events), or null.
 */
export function drawMoment(map, moment, styles, version = null) {
  const layer = map.overlay;
  layer.replaceChildren();
  const fresh = version === null || version !== map.momentVersion; // (a redraw does not replay it)
  map.momentVersion = version;
  for (const node of Object.values(map.nodes)) node.group.classList.remove("moved-from", "moved-to", "conquered", "placed", "carded");
  map.root.dataset.moment = moment ? moment.kind : "";
  if (!moment) return;
  const colour = styles[moment.seat]?.colour || "#333";
  const from = map.nodes[moment.source], to = map.nodes[moment.target];
  if (from && to) {
    from.group.classList.add("moved-from");
    to.group.classList.add("moved-to");
    const line = arrow(map, from.at, to.at, colour, moment.kind);
    layer.append(line);
    if (moment.count && (moment.kind === "occupy" || moment.kind === "fortify") && fresh && !stillMotion()) {
      layer.append(armiesMoving(line.querySelector(".arrow-line").getAttribute("d"), moment.count, colour));
    }
  }
  for (const [id, count] of Object.entries(moment.placed || {})) {
    const node = map.nodes[id];
    if (!node) continue;
    node.group.classList.add("placed");
    const [x, y] = node.at;
    layer.append(svg("g", { class: "placed-mark", "data-placed": id },
      svg("circle", { cx: x, cy: y, r: BADGE + 5, class: "pulse", stroke: colour }),
      callout(map, x, y - BADGE - 10, `+${count}`, "plus")));
  }
  if (moment.battle && to) layer.append(dicePanel(map, moment, styles, from.at, to.at));
  if (moment.conquered && to) {
    to.group.classList.add("conquered");
    const [x, y] = to.at;
    layer.append(callout(map, x, y - BADGE - 12, moment.count ? `Conquered · ${moment.count} move in` : "Conquered!", "conquest"));
  }
  const played = map.nodes[moment.cardAt];
  if (moment.card !== undefined && played) {
    const name = map.board.adventures?.[moment.card] ?? "adventure card";
    played.group.classList.add("carded");
    layer.append(callout(map, played.at[0], played.at[1] + BADGE + 24, `♦ ${name}`, "adventure"));
  }
  if (moment.eliminated?.length) {
    const names = moment.eliminated.map((s) => seatName(styles, s)).join(" and ");
    layer.append(banner(map, `${names} ${moment.eliminated.length > 1 ? "are" : "is"} eliminated by ${seatName(styles, moment.seat)}`));
  } else if (moment.kind === "fortify" && to) {
    layer.append(callout(map, to.at[0], to.at[1] - BADGE - 12, `+${moment.count} from ${from ? from.name : "?"}`, "plus"));
  }
}

const MOTION_SECONDS = 0.9;

/** The reader asked for less motion: the arrow alone says where the armies went. */
function stillMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/**
 * The moved armies as a badge travelling along the arrow, from the source to the target,
 * then fading there (issue 51: "armies move along the arrow"). SMIL's animateMotion: the
 * map's SVG clock drives it, so a test may pause it and set its time.
 */
function armiesMoving(path, count, colour) {
  const motion = svg("animateMotion", { path, dur: `${MOTION_SECONDS}s`, fill: "freeze", begin: "indefinite", calcMode: "spline", keyTimes: "0;1", keySplines: ".4 0 .2 1" });
  const badge = svg("g", { class: "armies-moving", "data-count": count, "aria-hidden": "true" },
    svg("circle", { r: BADGE - 1, fill: colour, class: "moving-disc" }),
    svg("text", { y: 4.5, "text-anchor": "middle", class: "moving-count" }, text(count)),
    motion);
  queueMicrotask(() => motion.beginElement?.()); // (once in the document)
  return badge;
}

/** A curved arrow from badge to badge in the mover's colour, over a dark casing. */
function arrow(map, [x1, y1], [x2, y2], colour, kind) {
  let dx = x2 - x1, dy = y2 - y1;
  const across = Math.abs(dx) > map.width * 0.6; // the sea lane round the world: point off the edge
  if (across) { dx = dx > 0 ? -60 : 60; dy = 0; x2 = x1 + dx; y2 = y1; }
  const length = Math.hypot(dx, dy) || 1;
  const ux = dx / length, uy = dy / length;
  const start = [x1 + ux * (BADGE + 3), y1 + uy * (BADGE + 3)];
  const end = across ? [x2, y2] : [x2 - ux * (BADGE + 6), y2 - uy * (BADGE + 6)];
  const bend = Math.min(40, length * 0.22);
  const control = [(start[0] + end[0]) / 2 - uy * bend, (start[1] + end[1]) / 2 + ux * bend];
  const d = `M${start[0].toFixed(1)},${start[1].toFixed(1)} Q${control[0].toFixed(1)},${control[1].toFixed(1)} ${end[0].toFixed(1)},${end[1].toFixed(1)}`;
  return svg("g", { class: `move-arrow ${kind}`, "data-kind": kind },
    svg("path", { d, class: "arrow-casing" }),
    svg("path", { d, class: "arrow-line", stroke: colour, "marker-end": "url(#arrow-head)" }));
}

/** Both sides' dice, sorted as compared, with the losses; beside the arrow, inside the map. */
function dicePanel(map, moment, styles, from, to) {
  const { attacker_dice: attack = [], defender_dice: defend = [], attacker_losses: lostA = 0, defender_losses: lostD = 0 } = moment.battle;
  const size = 22, gap = 4;
  const columns = Math.max(attack.length, defend.length, 1);
  const NAME = 132; // room for "2 strong medium bot": two bots' names must not read alike
  const width = NAME + columns * (size + gap) + 30, height = 2 * (size + 6) + 10;
  const [x, y] = clearSpot(map, [from, to], width, height);
  const row = (dice, lost, seat, top, side) => {
    const cells = [...dice].sort((a, b) => b - a).map((value, i) => die(x + NAME + i * (size + gap), top, size, value, side));
    const who = `${styles[seat]?.label ?? ""} ${seatName(styles, seat)}`.trim();
    return [
      svg("text", { x: x + 6, y: top + 13, class: "dice-who" }, svg("title", {}, text(who)), text(who.length > 21 ? `${who.slice(0, 20)}…` : who)),
      ...cells,
      svg("text", { x: x + NAME + columns * (size + gap) + 2, y: top + 13, class: lost ? "dice-loss" : "dice-none" }, text(lost ? `−${lost}` : "0")),
    ];
  };
  return svg("g", { class: "dice-panel", "data-attacker": attack.join(""), "data-defender": defend.join(""), "data-losses": `${lostA}-${lostD}` },
    svg("rect", { x, y, width, height, rx: 6, class: "dice-box" }),
    svg("title", {}, text(`attack ${attack.join(" ")} vs defence ${defend.join(" ")}: attacker loses ${lostA}, defender loses ${lostD}`)),
    ...row(attack, lostA, moment.seat, y + 6, "attack"),
    ...row(defend, lostD, moment.defender, y + 14 + size, "defend"));
}

/** Where a box of ``width`` x ``height`` covers fewest badges, near the move and clear of both ends. */
function clearSpot(map, ends, width, height) {
  const mid = [(ends[0][0] + ends[1][0]) / 2, (ends[0][1] + ends[1][1]) / 2];
  const badges = Object.values(map.nodes).map((n) => n.at);
  let best = null;
  for (const distance of [45, 70, 100, 135, 170]) {
    for (let k = 0; k < 16; k++) {
      const angle = (Math.PI * 2 * k) / 16;
      const x = Math.max(4, Math.min(map.width - width - 4, mid[0] + Math.cos(angle) * distance - width / 2));
      const y = Math.max(4, Math.min(map.height - height - 4, mid[1] + Math.sin(angle) * distance - height / 2));
      const covers = (p, pad) => p[0] > x - pad && p[0] < x + width + pad && p[1] > y - pad && p[1] < y + height + pad + 12; // (names below)
      const score = badges.filter((p) => covers(p, 16)).length + 10 * ends.filter((p) => covers(p, 24)).length + distance / 150;
      if (!best || score < best[0]) best = [score, x, y];
    }
  }
  return [best[1], best[2]];
}

const PIPS = { 1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]], 4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]], 6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]] };

function die(x, y, size, value, side) {
  const c = size / 2, step = size * 0.27;
  const pips = (PIPS[value] || []).map(([i, j]) => svg("circle", { cx: x + c + i * step, cy: y + c + j * step, r: size * 0.09, class: "pip" }));
  return svg("g", { class: `die ${side}`, "data-value": value }, svg("rect", { x, y, width: size, height: size, rx: 3.5 }), ...pips, svg("title", {}, text(value)));
}

function callout(map, x, y, words, kind) {
  const width = words.length * 6.6 + 12;
  x = Math.max(width / 2 + 2, Math.min(map.width - width / 2 - 2, x));
  y = Math.max(13, y);
  return svg("g", { class: `callout ${kind}` },
    svg("rect", { x: x - width / 2, y: y - 11, width, height: 16, rx: 8 }),
    svg("text", { x, y: y + 1, "text-anchor": "middle" }, text(words)));
}

function banner(map, words) {
  const width = Math.min(map.width - 20, words.length * 8.4 + 30);
  const x = (map.width - width) / 2;
  return svg("g", { class: "banner", role: "status" },
    svg("rect", { x, y: 8, width, height: 28, rx: 6 }),
    svg("text", { x: map.width / 2, y: 27, "text-anchor": "middle" }, text(words)));
}
