// The end of a game, and of a seat's part in it (issue 51): who won and why, in the mode's
// own words; where this seat finished; how long the game took. Also "you are out" while the
// game goes on. One function draws it all (endingPanel), so a mode's `win_condition` from
// /v1/modes, where the API gives one, is said here and nowhere else.
import { api, el, seatName } from "/board/common.js";
import { keepSeat } from "/board/seat.js";

let modes = null; // /v1/modes, fetched once, only when a game has ended or a seat is out

async function winCondition(mode) {
  if (!modes) modes = api("/v1/modes").catch(() => ({ modes: [] }));
  const found = (await modes).modes?.find((m) => m.name === mode);
  return found?.win_condition ?? null;
}

const list = (names) => (names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0] ?? "nobody");

/** How the game was won, in words (``reason`` is the engine's finish_reason). */
export function reasonWords(view, events, styles) {
  const who = (seat) => seatName(styles, seat);
  const winners = (view.winners?.length ? view.winners : [view.winner]).filter(Boolean);
  const named = list(winners.map(who));
  const first = firstOut(events);
  switch (view.finish_reason) {
    case "conquest": return `${named} won by conquest: every other player was eliminated.`;
    case "resignation":
      if (view.mode === "team") return `${named} won as a team: ${first ? who(first.seat) : "a player"} of the other team resigned, and in the team game the first team to lose a player loses.`;
      return `${named} won as the last player left: ${outs(events, who).join("; ")}.`;
    case "elimination": return `${named} won as a team: ${first ? `${who(first.seat)} of the other team was eliminated${first.by ? ` by ${who(first.by)}` : ""}` : "a player of the other team was eliminated"}, and in the team game the first team to lose a player loses.`;
    case "fellowship_left": {
      const score = view.mode_state?.scores?.[winners[0]]?.total;
      return `${named} won on points: the Fellowship left the Dead Marshes, which ends the game, and ${named} had the best score${score !== undefined ? ` (${score})` : ""}.`;
    }
    case "mission": return `${named} won by completing a secret mission${missionText(view, winners[0])}.`;
    case "missions": return `${named} won by completing every mission dealt${missionText(view, winners[0])}.`;
    case "abandoned": return "The game was abandoned: nobody won.";
    default: return `${named} won (${(view.finish_reason || "the game ended").replaceAll("_", " ")}).`;
  }
}

/** Each player out of the game, in words ("Ada resigned", "Alan was eliminated by Grace"). */
function outs(events, who) {
  const words = [];
  for (const envelope of events) {
    const e = envelope?.event;
    if (e?.type === "player_eliminated") words.push(`${who(e.player)} was eliminated by ${who(e.seat)}`);
    if (e?.type === "player_resigned") words.push(`${who(e.seat)} resigned`);
  }
  return words.length ? words : ["every other player resigned or was eliminated"];
}

function missionText(view, seat) {
  const texts = (view.mode_state?.missions?.[seat] || []).map((m) => m.text).filter(Boolean);
  return texts.length ? `: ${texts.join("; ")}` : "";
}

/** The first player out of the game (the team game's deciding loss): {seat, by, turn}. */
function firstOut(events) {
  for (const envelope of events) {
    const e = envelope?.event;
    if (e?.type === "player_eliminated") return { seat: e.player, by: e.seat };
    if (e?.type === "player_resigned") return { seat: e.seat, by: null };
  }
  return null;
}

/** How ``seat`` left the game: {how: "eliminated"|"resigned", by, turn}, or null. */
export function seatOut(events, seat) {
  let turn = 0;
  for (const envelope of events) {
    const e = envelope?.event;
    if (!e) continue;
    if (e.type === "turn_started") turn = e.turn;
    if (e.type === "player_eliminated" && e.player === seat) return { how: "eliminated", by: e.seat, turn };
    if (e.type === "player_resigned" && e.seat === seat) return { how: "resigned", by: null, turn };
  }
  return null;
}

/** Each player seat's place: winners first, then who stayed longest, then by territories. */
export function places(view, events) {
  const winners = new Set((view.winners?.length ? view.winners : [view.winner]).filter(Boolean));
  const ranking = view.mode_state?.ranking;
  if (ranking?.length) return ranking;
  const outAt = {};
  events.forEach((envelope, version) => {
    const e = envelope?.event;
    if (e?.type === "player_eliminated") outAt[e.player] = version;
    if (e?.type === "player_resigned") outAt[e.seat] = version;
  });
  const players = view.seats.filter((s) => s.kind === "player");
  const score = (s) => [winners.has(s.id) ? 1 : 0, outAt[s.id] === undefined ? Infinity : outAt[s.id], s.territories];
  return players.sort((a, b) => {
    const [x, y] = [score(a), score(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return y[i] - x[i];
    return 0;
  }).map((s) => s.id);
}

function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] || "th"}`;
}

function length(events, view) {
  const times = events.filter(Boolean).map((e) => Date.parse(e.time)).filter((t) => !Number.isNaN(t));
  const minutes = times.length > 1 ? Math.round((times.at(-1) - times[0]) / 60000) : null;
  const span = minutes === null ? "" : minutes < 1 ? ", under a minute" : `, ${minutes} minute${minutes === 1 ? "" : "s"}`;
  return `${view.turn} turn${view.turn === 1 ? "" : "s"}, ${view.version} events${span}`;
}

/**
 * The panel for ``ctx`` = {view, events, styles, seat (this tab's, or null)}: null while the
 * game goes on and the seat is in it. A finished game: the winner and why, the rule, your
 * place and the length. A seat out of a running game: how it went out.
 */
export async function endingPanel(ctx) {
  const { view, events, styles, seat } = ctx;
  const finished = view.phase === "finished";
  const out = seat ? seatOut(events, seat) : null;
  if (!finished && !out) return null;
  const who = (s) => seatName(styles, s);
  const parts = [];
  if (finished) {
    const winners = (view.winners?.length ? view.winners : [view.winner]).filter(Boolean);
    const won = seat && winners.includes(seat);
    parts.push(el("h2", { text: won ? "You won!" : "Game over" }));
    parts.push(el("p", { class: "why", text: reasonWords(view, events, styles) }));
    const rule = await winCondition(view.mode);
    if (rule) parts.push(el("p", { class: "rule muted", text: `How this mode is won: ${rule}` }));
    if (seat && !won) {
      const place = places(view, events).indexOf(seat) + 1;
      parts.push(el("p", { class: "you", text: `${outWords(out, who)}${place ? ` You finished ${ordinal(place)} of ${view.seats.filter((s) => s.kind === "player").length}.` : ""}` }));
    }
    parts.push(el("p", { class: "muted", text: `The game: ${length(events, view)}.` }));
    if (seat) parts.push(rematchButton(view, seat));
    if (document.getElementById("analysis")) parts.push(el("p", {}, el("a", { href: "#analysis", text: "The analysis and “continue from here” are below the board." })));
  } else {
    parts.push(el("h2", { text: out.how === "resigned" ? "You resigned" : "You are out" }));
    parts.push(el("p", { class: "you", text: `${outWords(out, who)} The game goes on without you: watch it here.` }));
  }
  return el("section", { class: "ending", id: "ending-panel", "aria-label": "end of the game", role: "status" }, ...parts);
}

function outWords(out, who) {
  if (!out) return "";
  const when = out.turn ? `in turn ${out.turn}` : "during the setup"; // (not "in turn 0")
  if (out.how === "resigned") return `You resigned ${when}.`;
  return `You were eliminated by ${who(out.by)} ${when}.`;
}

/**
 * A rematch (issue 51): a new game of the same board, mode, rules and clock, with the same
 * seats in the same order: this tab's seat played by its person again, each bot at its bot
 * and level, and every other person's seat open, to be joined from the lobby (their tokens
 * are theirs: this tab cannot hand them over). The body of ``POST /v1/games``.
 */
export function rematchRequest(view, seat) {
  const players = view.seats.filter((s) => s.kind === "player");
  const seats = players.map((s) => {
    const team = s.team ? { team: s.team } : {};
    if (s.controller === "bot") return { kind: "bot", ...(s.bot ? { bot: s.bot } : {}), ...(s.level ? { level: s.level } : {}), ...team };
    if (s.id === seat) return { kind: "human", ...(s.name ? { name: s.name } : {}), ...team };
    return { kind: "open", ...team };
  });
  const { variant, ...rules } = view.rules || {}; // (``variant``: the mode's old name)
  void variant;
  return { board: view.board, mode: view.mode, rules, seats, ...(view.clock ? { clock: view.clock } : {}) };
}

function rematchButton(view, seat) {
  const error = el("p", { class: "error", role: "alert", id: "rematch-error" });
  const others = view.seats.filter((s) => s.kind === "player" && s.controller !== "bot" && s.id !== seat).length;
  const button = el("button", { type: "button", class: "primary", id: "rematch", text: "Rematch" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    error.textContent = "";
    try {
      // The game as it is now (a past state shown at the end carries no clock).
      const now = await api(`/v1/games/${encodeURIComponent(view.game_id)}`).catch(() => view);
      const made = await api("/v1/games", { method: "POST", body: rematchRequest(now, seat) });
      const game = made.game.game_id;
      keepSeat(game, seat, made.tokens[seat]);
      location.assign(`/games/${encodeURIComponent(game)}`);
    } catch (failure) {
      error.textContent = `No rematch: ${failure.message}`;
      button.disabled = false;
    }
  });
  const note = others ? ` The other player${others > 1 ? "s'" : "'s"} seat${others > 1 ? "s are" : " is"} open: they join from the lobby.` : "";
  return el("div", { class: "rematch" }, button, el("small", { class: "muted", text: ` A new game with the same seats and rules${view.seats.some((s) => s.controller === "bot") ? " (the bots at the same levels)" : ""}.${note}` }), error);
}
