// The seat's secrets as its own view gives them: territory cards (pick three to trade),
// missions in words, Lord of the Rings adventure cards. Nothing here is asked of the
// server but the seat's own view and legal actions, so another seat's cards never arrive.
import { el } from "/board/common.js";

export const SYMBOLS = { infantry: "♟", cavalry: "♞", artillery: "✹", creature: "♜", wild: "★" };

// When each kind of adventure card may be played (the moments of riskcore/modes/adventure.py).
const MOMENTS = {
  at_once: "at once, when drawn",
  site: "as a mission, in your battle or manoeuvre phase (the leader then stays there until your next turn)",
  turn_start: "at the start of your turn (reinforcements)",
  before_attack: "before one of your attacks",
  before_attack_stronghold: "before one of your attacks on a stronghold",
  after_attacks: "after your last attack (manoeuvres)",
  fellowship_rolled: "in the Fellowship's window, after its roll",
  fellowship_unrolled: "in the Fellowship's window, as it moves on without a roll",
  fellowship_leaves: "in the Fellowship's window, as it moves on",
  attacked: "when you are attacked (the defence window)",
};

/** A card's words: "Alaska · infantry", a wild's "wild". */
export function cardWords(card, board) {
  if (!card) return "a card";
  if (card.symbol === "wild" || !card.territory) return `wild ${SYMBOLS.wild}`;
  return `${board.names[card.territory] ?? card.territory} · ${card.symbol}`;
}

const sameSet = (a, b) => a.length === b.length && [...a].sort((x, y) => x - y).every((v, i) => v === [...b].sort((x, y) => x - y)[i]);

/** The suggested trade: a set that earns the territory bonus, keeping wilds for later. */
export function bestTrade(trades, cards, view, seat) {
  const score = (action) => {
    const used = action.command.cards.map((id) => cards[id]);
    const bonus = action.command.bonus_territory && view.territories[action.command.bonus_territory]?.owner === seat ? 10 : 0;
    const wilds = used.filter((c) => c?.symbol === "wild").length;
    return bonus - wilds;
  };
  return [...trades].sort((a, b) => score(b) - score(a))[0] || null;
}

/**
 * The hand panel. ``ctx``: {board, view, seat, actions, picked (Set of card ids), send, redraw}.
 * A click on a card picks it; three picked that make a legal set enable "Trade these".
 */
export function renderHand(box, ctx) {
  const { board, view, seat } = ctx;
  const me = view.seats.find((s) => s.id === seat);
  const cardsById = Object.fromEntries((board.cards || []).map((c) => [c.id, c]));
  const held = me?.cards || [];
  const trades = (ctx.actions || []).filter((a) => a.command.type === "trade_cards");
  for (const id of [...ctx.picked]) if (!held.includes(id)) ctx.picked.delete(id);
  const parts = [];
  if (held.length) {
    const items = held.map((id) => {
      const card = cardsById[id];
      const owned = card?.territory && view.territories[card.territory]?.owner === seat;
      const picked = ctx.picked.has(id);
      return el("li", {},
        el("button", {
          type: "button", class: `card${picked ? " picked" : ""}`, "data-card": id, "aria-pressed": String(picked),
          title: owned ? "you hold this territory: +2 armies there when traded" : null,
          onclick: () => { if (ctx.picked.has(id)) ctx.picked.delete(id); else if (ctx.picked.size < 3) ctx.picked.add(id); ctx.redraw(); },
        }, el("span", { class: "symbol", "aria-hidden": "true", text: SYMBOLS[card?.symbol] || "?" }), ` ${cardWords(card, board)}${owned ? " (yours)" : ""}`));
    });
    parts.push(el("ul", { class: "cards", "aria-label": "your territory cards" }, items));
  } else if (me && me.status === "playing" && view.phase !== "finished") {
    parts.push(el("p", { class: "muted", text: "No territory cards yet: conquer a territory in a turn to draw one." }));
  }
  if (view.must_trade && view.current === seat) {
    parts.push(el("p", { class: "forced", role: "note", text: held.length >= 6 ? `You hold ${held.length} cards: trade sets until you hold fewer than 5 before you go on.` : `You hold ${held.length} cards: you must trade a set now, before placing armies.` }));
  }
  if (trades.length) {
    // Each offered set says what it brings (with fixed card values its symbols decide).
    const worth = (action) => action.armies ? ` for ${action.armies} armies` : "";
    const chosen = trades.find((a) => sameSet(a.command.cards, [...ctx.picked]));
    const best = bestTrade(trades, cardsById, view, seat);
    const names = (action) => action.command.cards.map((id) => cardWords(cardsById[id], board)).join(", ");
    const tradeButton = (action, text, cls) => el("button", { type: "button", class: cls, "data-trade": action.command.cards.join(","), onclick: (e) => ctx.send({ ...action.command }, e.target.closest("div")) , text });
    parts.push(el("div", { class: "trades" },
      chosen ? tradeButton(chosen, `Trade these three${worth(chosen)}`, "primary trade-picked")
        : el("button", { type: "button", disabled: true, class: "trade-picked", text: ctx.picked.size === 3 ? "These three are not a set" : `Pick three cards to trade (${ctx.picked.size} picked)` }),
      best ? el("p", { class: "suggested" }, `Suggested: ${names(best)}${best.command.bonus_territory ? ` (+2 on ${board.names[best.command.bonus_territory]})` : ""} `, tradeButton(best, `Trade the suggested set${worth(best)}`, "trade-best")) : null));
  }
  const missions = view.mode_state?.missions?.[seat];
  if (missions?.length) {
    parts.push(el("h3", { text: missions.length === 1 ? "Your mission" : "Your missions" }));
    parts.push(el("ul", { class: "my-missions" }, missions.map((m) => el("li", { text: `${m.text || `grade ${m.grade}`}${m.claimed ? " ✓ done" : ""}` }))));
  }
  const adventure = view.mode_state?.adventure;
  const mine = adventure?.hands?.[seat]?.adventure_hand;
  if (mine) {
    parts.push(el("h3", { text: "Your adventure cards" }));
    const side = view.mode_state?.sides?.[seat];
    parts.push(mine.length ? el("ul", { class: "adventure-cards" }, mine.map((n) => {
      const card = adventure.catalogue[n];
      return el("li", { "data-adventure": n }, el("strong", { text: card?.name || `card ${n}` }), ` — ${card?.text || ""} `,
        el("em", { text: `Played ${MOMENTS[card?.moment] || (card?.moment || "").replaceAll("_", " ")}.${pointWords(card, side)}` }));
    })) : el("p", { class: "muted", text: "none in hand" }));
  }
  box.replaceChildren(...parts);
  box.hidden = !parts.length;
}

/** What a card counts at the end (" Worth 1 point."), for the seat's side; nothing for 0. */
export function pointWords(card, side) {
  const points = card?.points?.[side] ?? Math.max(0, ...Object.values(card?.points || {}));
  return points ? ` Worth ${points} point${points === 1 ? "" : "s"} at the end.` : "";
}

export function adventureName(view, n) {
  return view?.mode_state?.adventure?.catalogue?.[n]?.name;
}
