// What just happened, one step at a time: the events cut into steps a person can follow
// (a placement, a roll of the dice, a conquest, a move), the last move read from them for
// the map, and the live page's queue that shows other seats' steps at a chosen pace.

// Events that change the board and end a step unless a follow-up of the same command comes next.
const SHOWN = new Set([
  "territory_claimed", "armies_placed", "cards_traded", "battle_resolved", "territory_conquered",
  "territory_occupied", "fortified", "player_eliminated", "neutral_bribed", "leader_placed",
  "leader_moved", "leader_lost", "fellowship_moved", "game_finished", "player_resigned",
  "adventure_played", "adventure_mission_claimed", "adventure_uprising_revealed",
]);
// Events that belong to the step before them (the same command's consequences).
const FOLLOW_UP = new Set(["territory_conquered", "player_eliminated", "leader_moved", "leader_lost", "game_finished", "card_drawn"]);

/** Whether the board should pause after ``version`` (``events`` is indexed by version). */
export function isStepEnd(events, version) {
  const here = events[version]?.event;
  if (!here || !SHOWN.has(here.type)) return false;
  const next = events[version + 1]?.event;
  return !next || !FOLLOW_UP.has(next.type);
}

/** The first step end after ``version`` and at most ``head``, else ``head``. */
export function nextStep(events, version, head) {
  for (let v = version + 1; v < head; v++) if (isStepEnd(events, v)) return v;
  return head;
}

/** The last step end before ``version`` (at least 1). */
export function previousStep(events, version) {
  for (let v = version - 1; v > 1; v--) if (isStepEnd(events, v)) return v;
  return 1;
}

/**
 * The move to draw at ``version``: the newest step at or before it that changed the board.
 * {kind, seat, defender, source, target, count, battle, conquered, eliminated, placed}.
 */
export function momentAt(events, version) {
  let end = version;
  for (let tries = 0; tries < 40 && end >= 1; tries++) {
    const moment = stepMoment(events, end);
    if (moment) return moment;
    end -= 1;
    while (end > 1 && !isStepEnd(events, end)) end -= 1;
  }
  return null;
}

/** What the step ending at ``end`` did, read backwards to the previous step's end. */
function stepMoment(events, end) {
  let moment = null;
  const start = previousStepEnd(events, end);
  for (let v = start + 1; v <= end; v++) {
    const e = events[v]?.event;
    if (!e) continue;
    moment = apply(moment, e);
  }
  return moment;
}

function previousStepEnd(events, end) {
  for (let v = end - 1; v >= 1; v--) if (isStepEnd(events, v)) return v;
  return 0;
}

function apply(moment, e) {
  const m = moment || { kind: null, seat: e.seat, placed: null, eliminated: [] };
  switch (e.type) {
    case "battle_resolved":
      return { ...m, kind: "attack", seat: e.seat, defender: e.defender, source: e.source, target: e.target, battle: e };
    case "territory_conquered":
      return { ...m, kind: m.kind || "attack", seat: e.seat, defender: e.defender, source: e.source, target: e.target, conquered: true };
    case "territory_occupied":
      return { ...m, kind: "occupy", seat: e.seat, source: e.source, target: e.target, count: e.count, conquered: true };
    case "fortified":
      return { ...m, kind: "fortify", seat: e.seat, source: e.source, target: e.target, count: e.count };
    case "player_eliminated":
      return { ...m, eliminated: [...m.eliminated, e.player] };
    case "armies_placed":
    case "territory_claimed": {
      const placed = { ...(m.placed || {}) };
      placed[e.territory] = (placed[e.territory] || 0) + (e.count ?? 1);
      return { ...m, kind: m.kind || "place", seat: e.seat, placed };
    }
    case "adventure_played": // a Lord of the Rings card: where it acted, by name on the map
    case "adventure_mission_claimed":
    case "adventure_uprising_revealed":
      return { ...m, kind: m.kind || "adventure", seat: e.seat, card: e.adventure, cardAt: e.target ?? e.territory ?? e.source ?? null };
    case "cards_traded":
      if (!e.bonus_territory) return m.kind ? m : { ...m, kind: "trade", seat: e.seat };
      return { ...m, kind: m.kind || "place", seat: e.seat, placed: { ...(m.placed || {}), [e.bonus_territory]: e.bonus_armies } };
    default:
      return moment;
  }
}

// ---------------------------------------------------------------- the live queue

/**
 * Whom the game waits for, in words that read right when it is this tab's own ``seat``
 * (null: a spectator); ``behind``: the steps still to be played back; ``name``: a seat's
 * name. Nothing once the game is over or the seat is out (the ending panel says it).
 * Steps still to be played back come first: the version shown may be the seat's own last,
 * where it is still "current" although the others have moved since (issue 51).
 */
export function waitingFor(view, seat, behind, name) {
  if (view?.phase === "finished" || view?.seats?.some((s) => s.id === seat && s.status !== "playing")) return "";
  if (behind) return `Other seats' moves are playing back (${behind} to go).`;
  const waited = view?.defender_to_choose || view?.current;
  if (waited && waited === seat) return "Your move is on its way…";
  return `Waiting for ${name(waited)}.`;
}

export const PACES = { instant: 0, fast: 300, normal: 800, slow: 1600 };
const MOST_BEHIND = 12; // steps: a longer backlog is skipped (it stays in the log)
const DRAWING = "drawing"; // the timer's place while a paced step is being fetched
const MOST_WAIT = 10000; // ms: a step whose state has not come by then waits no longer

/**
 * Shows other seats' steps one by one while the page follows the game. ``state()`` gives
 * {events, head, shown, seat} (``seat``: the one this tab plays, or null); ``show`` draws a
 * version (exactly that one when paced) and returns a promise of it drawn. Steps of this
 * tab's own seat pass without a pause.
 */
export class Playback {
  constructor(state, show, onChange = () => {}) {
    this.state = state;
    this.show = show;
    this.onChange = onChange;
    this.timer = null;
    this.at = 0; // the last version asked for (a fetch may still be on its way)
    this.ticket = 0; // which paced step may start the next one's timer
    const saved = localStorage.getItem("risk-pace");
    this.pace = PACES[saved] !== undefined ? saved : "normal";
  }

  setPace(name) {
    this.pace = PACES[name] !== undefined ? name : "normal";
    localStorage.setItem("risk-pace", this.pace);
    this.advance();
  }

  /** Steps not yet shown (what "skip to now" would skip). */
  behind() {
    const { events, head, shown } = this.state();
    let count = 0;
    for (let v = Math.max(shown, this.at) + 1; v <= head; v++) if (v === head || isStepEnd(events, v)) count++;
    return count;
  }

  /** New events arrived (or the pace changed): show the next step now, the rest at the pace. */
  advance() {
    if (this.timer) return this.onChange();
    const delay = PACES[this.pace];
    const { events, head, shown, seat } = this.state();
    let at = Math.max(shown, this.at);
    if (at >= head) return this.onChange();
    let next = nextStep(events, at, head);
    const own = (v) => seat && events[v]?.actor === seat;
    while (next < head && (delay === 0 || this.behind() > MOST_BEHIND || own(next))) {
      this.at = at = next; // passed over: the log keeps it
      next = nextStep(events, at, head);
    }
    this.at = next;
    const drawn = this.show(next, delay > 0);
    // The next step waits its turn, even one that has not happened yet, counted from when
    // this one is drawn: a past state slow to arrive (a busy server) is not overtaken by the
    // next step's request, which would leave it unseen.
    if (delay) {
      const ticket = ++this.ticket;
      this.timer = DRAWING;
      const patience = new Promise((resolve) => setTimeout(resolve, MOST_WAIT));
      Promise.race([Promise.resolve(drawn), patience]).finally(() => {
        if (ticket !== this.ticket) return; // stopped or skipped meanwhile
        this.timer = setTimeout(() => { this.timer = null; this.advance(); }, delay);
      });
    }
    this.onChange();
  }

  /** Straight to the newest version. */
  skip() {
    this.stop();
    this.at = this.state().head;
    this.show(this.at);
    this.onChange();
  }

  stop() {
    if (this.timer !== DRAWING) clearTimeout(this.timer);
    this.timer = null;
    this.ticket++;
  }
}
