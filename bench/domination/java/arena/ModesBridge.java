package arena;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;

import net.yura.domination.engine.RiskUtil;
import net.yura.domination.engine.ai.AISubmissive;
import net.yura.domination.engine.ai.AbstractAI;
import net.yura.domination.engine.core.Continent;
import net.yura.domination.engine.core.Country;
import net.yura.domination.engine.core.Mission;
import net.yura.domination.engine.core.Player;
import net.yura.domination.engine.core.RiskGame;

/**
 * The shared arena's bridge (arena.DominationBridge, compiled beside this class from the
 * shared arena's folder) with one more operation, for our game modes (bench/domination/dom_modes.py says how they are played):
 *
 *   mission GID SEAT TARGET COUNTRIES ARMIES C1 C2 C3
 *       switches game GID to Domination's secret-mission mode (its AIs then play
 *       AIMission) and gives Java player SEAT that mission: TARGET is the Java player
 *       to destroy (-1: none), COUNTRIES and ARMIES the territory goal (0 0: none),
 *       C1..C3 continents by their 1-based place in the map (0: none, *: any)  -> "ok"
 *
 *   ai GID SEAT
 *       the class of the AI that made Java player SEAT's last decision -> "ai " + its name
 *       (AIMission once the game has missions, else AIDomination: a check)
 *
 * Every other line goes to DominationBridge.handle unchanged (new, map, border, decide,
 * end, ping). A two-player game needs no operation of its own: the neutral seats are
 * passive "human" players of the Java game, which never asks them anything.
 */
public final class ModesBridge {

    private ModesBridge() {
    }

    public static void main(String[] args) throws Exception {
        java.io.File maps = new java.io.File(args.length > 0 ? args[0] : "maps");
        RiskUtil.streamOpener = new DominationBridge.FileIO(maps);
        RiskGame.setDefaultMapAndCards(args.length > 1 ? args[1] : "luca.map", args.length > 2 ? args[2] : "risk.cards");
        // The reflective handles DominationBridge.main sets before its loop.
        DominationBridge.C_ARMIES = DominationBridge.field(Country.class, "armies");
        DominationBridge.P_EXTRA = DominationBridge.field(Player.class, "extraArmies");
        DominationBridge.P_CARDS = DominationBridge.field(Player.class, "cardsOwned");
        DominationBridge.P_TERR = DominationBridge.field(Player.class, "territoriesOwned");
        DominationBridge.P_STATS = DominationBridge.field(Player.class, "Statistics");
        DominationBridge.P_CUR_STAT = DominationBridge.field(Player.class, "currentStatistic");
        DominationBridge.G_STATE = DominationBridge.field(RiskGame.class, "gameState");
        DominationBridge.G_CARDSTATE = DominationBridge.field(RiskGame.class, "cardState");
        DominationBridge.G_MUSTMOVE = DominationBridge.field(RiskGame.class, "mustmove");
        DominationBridge.G_CAPTURED = DominationBridge.field(RiskGame.class, "capturedCountry");
        DominationBridge.G_TRADECAP = DominationBridge.field(RiskGame.class, "tradeCap");
        DominationBridge.G_ATTACKER = DominationBridge.field(RiskGame.class, "attacker");
        DominationBridge.G_DEFENDER = DominationBridge.field(RiskGame.class, "defender");
        DominationBridge.G_ROUNDS = DominationBridge.field(RiskGame.class, "battleRounds");
        DominationBridge.G_SETUP = DominationBridge.field(RiskGame.class, "setup");
        DominationBridge.G_CURRENT = DominationBridge.field(RiskGame.class, "currentPlayer");
        DominationBridge.G_CARDS = DominationBridge.field(RiskGame.class, "Cards");
        DominationBridge.G_USED = DominationBridge.field(RiskGame.class, "usedCards");
        DominationBridge.AI_R = DominationBridge.field(AISubmissive.class, "r");
        Field mode = DominationBridge.field(RiskGame.class, "gameMode");

        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) {
                continue;
            }
            String reply;
            try {
                if (line.startsWith("mission ")) {
                    reply = mission(line.split(" "), mode);
                } else if (line.startsWith("ai ")) {
                    reply = "ai " + playing(line.split(" "));
                } else {
                    reply = DominationBridge.handle(line);
                }
            } catch (Throwable t) {
                StackTraceElement[] st = t.getStackTrace();
                reply = "err " + t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()).replace('\n', ' ')
                        + " at " + (st.length > 0 ? st[0].toString() : "?");
            }
            out.println(reply);
            out.flush();
        }
    }

    static String playing(String[] tok) throws Exception {
        DominationBridge.Game g = DominationBridge.GAMES.get(tok[1]);
        Object ai = g.ais[Integer.parseInt(tok[2])];
        if (ai == null) return "none";
        Object current = DominationBridge.field(AbstractAI.class, "current").get(ai);
        return current == null ? "none" : current.getClass().getSimpleName();
    }

    static String mission(String[] tok, Field mode) throws Exception {
        DominationBridge.Game g = DominationBridge.GAMES.get(tok[1]);
        if (g == null) throw new IllegalArgumentException("no game " + tok[1]);
        if (tok.length != 9) throw new IllegalArgumentException("mission GID SEAT TARGET COUNTRIES ARMIES C1 C2 C3");
        Player holder = g.players[Integer.parseInt(tok[2])];
        int target = Integer.parseInt(tok[3]);
        Continent[] continents = g.game.getContinents();
        Continent[] wanted = new Continent[3];
        for (int i = 0; i < 3; i++) {
            String c = tok[6 + i];
            wanted[i] = c.equals("*") ? RiskGame.ANY_CONTINENT : c.equals("0") ? null : continents[Integer.parseInt(c) - 1];
        }
        holder.setMission(new Mission(target >= 0 ? g.players[target] : null, Integer.parseInt(tok[4]),
                Integer.parseInt(tok[5]), wanted[0], wanted[1], wanted[2], "arena"));
        mode.setInt(g.game, RiskGame.MODE_SECRET_MISSION);
        return "ok";
    }
}
