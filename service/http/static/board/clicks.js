// What a click on a territory does (issue 51: fewer clicks). The page offers exactly
// /legal-actions; this only decides which of them a click means:
// - placing: a click places the chosen amount (1, 5 or all; shift-click: 5); in setup, where
//   the rules take one army a turn, the rest waits in a queue the page sends turn by turn;
// - attacking: with a source picked, a click on an outlined enemy fights at once (the most
//   dice, or a blitz, or asks first: a setting kept in this browser); again attacks again;
// - after a conquest: a click on the conquered territory moves the amount shown in, one on
//   the source moves the least the rules allow;
// - fortifying: with a source picked, a click on a destination moves the amount shown.

const KEY = "risk-clicks";
export const ATTACK_CHOICES = { roll: "rolls the most dice", blitz: "blitzes until it falls", ask: "asks first" };
export const PER_CLICK = ["1", "5", "all"];
export const SHIFT_COUNT = 5;

/** The settings kept in this browser: {attack, setup, reinforce} (the last two: per click). */
export function loadSettings() {
  let kept = {};
  try { kept = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { kept = {}; }
  return {
    attack: ATTACK_CHOICES[kept.attack] ? kept.attack : "roll",
    setup: PER_CLICK.includes(kept.setup) ? kept.setup : "1",
    reinforce: PER_CLICK.includes(kept.reinforce) ? kept.reinforce : "all",
  };
}

export function saveSettings(settings) {
  try { localStorage.setItem(KEY, JSON.stringify(settings)); } catch { /* private mode: this page only */ }
}

const territorial = (command) => command.territory ?? command.source ?? null;
const within = (value, [low, high]) => Math.max(low, Math.min(high, value));

/** How many armies a placing click asks for (a number, or Infinity for all). */
export function wanted(settings, phase, shift) {
  if (shift) return SHIFT_COUNT;
  const chosen = phase === "setup_place" ? settings.setup : settings.reinforce;
  return chosen === "all" ? Infinity : Number(chosen);
}

/**
 * A click's meaning: {pick, send, queue}. ``pick``: the territories picked after it;
 * ``send``: a command to send now, or null; ``queue``: {territory, left} armies to place
 * on later setup turns. ``ctx``: {actions, pick, phase, settings, shift, amount, dice,
 * occupation, occupyCount, reserve (the seat's armies still to place)}.
 */
export function clickPlan(territory, ctx) {
  const { actions, pick, phase, settings } = ctx;
  const [first] = pick;
  const of = (type) => actions.filter((a) => a.command.type === type);
  const occupy = of("occupy")[0];
  if (occupy && ctx.occupation) {
    const bounds = occupy.bounds.count;
    if (territory === ctx.occupation.target) return plan([], { ...occupy.command, count: within(ctx.occupyCount ?? bounds[1], bounds) });
    if (territory === ctx.occupation.source) return plan([], { ...occupy.command, count: bounds[0] });
    return plan(pick);
  }
  const once = actions.find((a) => ["claim_territory", "place_leader"].includes(a.command.type) && a.command.territory === territory);
  if (once) return plan([], { ...once.command });
  const place = of("place_armies").find((a) => a.command.territory === territory);
  if (place) {
    const [low, high] = place.bounds.count;
    const asked = wanted(settings, phase, ctx.shift);
    const count = within(asked === Infinity ? high : asked, [low, high]);
    const left = Math.min(asked, ctx.reserve ?? asked); // "all": what the seat has left
    const rest = phase === "setup_place" && left > count && Number.isFinite(left) ? left - count : 0;
    return plan([], { ...place.command, count }, rest ? { territory, left: rest } : null);
  }
  if (first && first !== territory) {
    const pair = actions.filter((a) => a.command.source === first && a.command.target === territory);
    const chosen = pairChoice(pair, ctx);
    if (chosen) return plan([first], chosen);
    if (pair.length) return plan([first, territory]); // ask first: the forms say what
  }
  if (first === territory && pick.length === 1) return plan([]); // a second click lets go
  if (actions.some((a) => territorial(a.command) === territory)) return plan([territory]);
  return plan([]);
}

function plan(pick, send = null, queue = null) {
  return { pick, send, queue };
}

/** The command a click on a target means, or null where the page asks first. */
function pairChoice(pair, ctx) {
  const find = (type) => pair.find((a) => a.command.type === type);
  const attack = find("attack"), blitz = find("blitz"), fortify = find("fortify");
  if (fortify) return { ...fortify.command, count: within(ctx.amount ?? fortify.bounds.count[1], fortify.bounds.count) };
  if (!attack && !blitz) return null;
  const choice = ctx.settings.attack;
  if (choice === "ask") return null;
  if (choice === "blitz" && blitz) return { ...blitz.command };
  if (attack) return { ...attack.command, dice: within(ctx.dice ?? attack.bounds.dice[1], attack.bounds.dice) };
  return { ...blitz.command };
}
