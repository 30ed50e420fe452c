// Lists of games from the archive (issue 48): the lobby's finished games, an account's
// games and a profile's history are one table, paged with the API's cursor ("More").
import { api, el } from "/board/common.js";

let words = null;

/** Modes' titles and boards' titles, fetched once per page. */
export function modeWords() {
  words ||= Promise.all([api("/v1/modes"), api("/v1/maps")]).then(([modes, maps]) => ({
    modes: modes.modes,
    boards: Object.fromEntries(maps.maps.map((m) => [m.name, m.title])),
  }));
  return words;
}

/** A game's mode in words, with its board when it is not the mode's own. */
export function gameMode(game, known) {
  const mode = known.modes.find((m) => m.name === game.mode);
  const board = known.boards[game.board] || game.board;
  if (!mode) return `${game.mode} on ${board}`;
  return game.board === mode.board ? mode.title : `${mode.title} on ${board.split(",")[0]}`;
}

/** The seat ``name`` sits in (an account's seat carries its name), or null; of two
 * seats of one name (two bots of a level are one account), the one that won. */
export function seatNamed(game, name) {
  const lower = name?.toLowerCase();
  const named = game.seats.filter((s) => s.name && s.name.toLowerCase() === lower);
  return named.find((s) => s.seat === game.winner) || named[0] || null;
}

/** "won" or "lost" for ``seat`` in a finished game (a team's win is each team-mate's). */
export function resultOf(game, seat) {
  if (!seat || game.status !== "finished" || !game.winner) return null;
  if (game.winner === seat.seat) return "won";
  const winner = game.seats.find((s) => s.seat === game.winner);
  return seat.team && winner?.team === seat.team ? "won" : "lost";
}

function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return `${date.toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" })} ${date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" })}`;
}

function seatWords(seat, me) {
  const name = seat.name || (seat.kind === "open" ? "open seat" : seat.seat);
  const mine = Boolean(me && seat.name?.toLowerCase() === me.toLowerCase());
  return el("span", { class: mine ? "seat-name me" : "seat-name" }, name, seat.kind === "bot" ? el("span", { class: "tag", text: "bot" }) : null);
}

function outcome(game, me) {
  if (game.status !== "finished") return el("span", { text: game.status === "open" ? "waiting for players" : "being played" });
  const winner = game.seats.find((s) => s.seat === game.winner);
  const result = resultOf(game, me);
  const said = el("strong", { class: `result ${result}`, text: result });
  if (result && winner === me) return said; // "won", not "won · winner: Ada"
  return el("span", {}, ...(result ? [said, " · "] : []), `winner: ${winner?.name || game.winner || "none"}`);
}

/**
 * A paged table of games in ``box``: ``load(query)`` shows the first page of
 * ``/v1/games?<query>``, "More" the next. ``me``: the name whose seat is marked and
 * whose result is shown; ``action(game, seat)``: the last column's control, or null.
 */
export function gameList(box, { caption, me: named = null, action = null, empty = "No games." }) {
  let me = named, query = null, cursor = null, shown = 0, pages = 0, asked = 0;
  const body = el("tbody");
  const more = el("button", { type: "button", class: "more", text: "More", hidden: true });
  const count = el("p", { class: "muted count", "aria-live": "polite" });
  const failure = el("p", { class: "error", role: "alert" });
  const table = el("table", { class: "game-list" }, el("caption", { text: caption }),
    el("thead", {}, el("tr", {}, ...["Game", "Mode", "Players", "Outcome", "Started", ""].map((h) => el("th", { scope: "col", text: h })))), body);
  box.replaceChildren(table, count, more, failure);

  async function page(append) {
    const params = new URLSearchParams(query);
    if (append && cursor) params.set("cursor", cursor);
    failure.textContent = "";
    const mine = ++asked; // a newer load (filters changed meanwhile) wins over this one
    try {
      const [found, known] = await Promise.all([api(`/v1/games?${params}`), modeWords()]);
      if (mine !== asked) return;
      if (!append) { body.replaceChildren(); shown = 0; pages = 0; }
      pages += 1;
      for (const game of found.games) body.append(row(game, known));
      shown += found.games.length;
      cursor = found.next_cursor;
      more.hidden = !cursor;
      count.textContent = shown ? `${shown} game${shown === 1 ? "" : "s"} shown${cursor ? "; more below" : ""}.` : empty;
      table.hidden = !shown;
    } catch (error) {
      if (mine === asked) failure.textContent = `Could not list the games: ${error.message}`;
    }
  }

  function row(game, known) {
    const mine = me ? seatNamed(game, me) : null;
    return el("tr", { "data-game": game.game_id, "data-status": game.status },
      el("td", {}, el("a", { href: `/games/${game.game_id}`, text: game.game_id.slice(0, 9), title: game.game_id })),
      el("td", { text: gameMode(game, known), "data-mode": game.mode }),
      el("td", {}, ...game.seats.flatMap((s, i) => (i ? [", ", seatWords(s, me)] : [seatWords(s, me)]))),
      el("td", {}, outcome(game, mine)),
      el("td", { text: when(game.created) }),
      el("td", {}, action ? action(game, mine) : el("a", { href: `/games/${game.game_id}`, text: game.status === "finished" ? "Replay" : "Watch" })));
  }

  more.addEventListener("click", () => page(true));
  return {
    /** The first page of ``next``; ``who``: whose seat to mark now (the default: ``me``). */
    load(next, who = named) { query = next; me = who; cursor = null; return page(false); },
    /** The first page again, unless the reader paged on (that would lose their place). */
    refresh() { return query === null || pages > 1 ? Promise.resolve() : page(false); },
  };
}
