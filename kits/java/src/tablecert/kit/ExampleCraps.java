package tablecert.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.List;

/**
 * The worked example: a vendor that implements craps.place_odds and craps.settle for real, on the
 * kit's shell. Money and exact fractions in BigInteger (no floating point anywhere).
 * Build: make; run: java -jar build/example.jar
 */
public final class ExampleCraps implements Vendor {
    private static final BigInteger TWO = BigInteger.TWO, ONE = BigInteger.ONE;
    private static final List<String> BETS = List.of("pass", "dont_pass", "come", "dont_come");
    private static final List<Integer> POINTS = List.of(4, 5, 6, 8, 9, 10);

    /** What {@code stake} of odds wins at true odds. */
    private record Ratio(BigInteger win, BigInteger stake) {}

    private JsonNode lastConfig;
    private TableConfig table;

    public static void main(String[] args) throws Exception {
        Shell.serve(new ExampleCraps());
    }

    @Override public ObjectNode implementation() {
        return Shell.NODES.objectNode().put("name", "tablecert Java kit example").put("version", "1.0").put("build", "java-example");
    }

    @Override public List<String> ops() { return List.of("craps.place_odds", "craps.settle"); }

    private TableConfig table(JsonNode config) {   // parsed once per request's config
        if (config != lastConfig) { table = null; lastConfig = config; }
        if (table == null) table = TableConfig.parse(config);
        return table;
    }

    private static boolean isDont(String bet) { return bet.equals("dont_pass") || bet.equals("dont_come"); }

    private static Ratio oddsRatio(String bet, int point) {
        long w = point == 4 || point == 10 ? 2 : point == 5 || point == 9 ? 3 : 6, s = point == 4 || point == 10 ? 1 : point == 5 || point == 9 ? 2 : 5;
        return isDont(bet) ? new Ratio(BigInteger.valueOf(s), BigInteger.valueOf(w)) : new Ratio(BigInteger.valueOf(w), BigInteger.valueOf(s));
    }

    /** The contract's checks 1-4 (invalid_request, invalid_bet, invalid_point, invalid_dice) on {@code fields}. */
    private static void readCase(JsonNode c, String... fields) {
        if (!c.isObject()) throw new CaseError("invalid_request", "a case must be an object");
        for (String f : fields) if (!c.has(f)) throw new CaseError("invalid_request", "missing field '" + f + "'");
        for (String f : fields) {
            JsonNode v = c.get(f);
            boolean ok = switch (f) {
                case "bet" -> v.isTextual();
                case "point" -> v.isNull() || v.isIntegralNumber();
                case "dice" -> v.isArray();
                case "odds_working" -> v.isBoolean();
                default -> v.isIntegralNumber();
            };
            if (!ok) throw new CaseError("invalid_request", "'" + f + "' has the wrong JSON type");
        }
        if (!BETS.contains(c.get("bet").textValue())) throw new CaseError("invalid_bet", "unknown bet");
        JsonNode p = c.get("point");
        if (!p.isNull() && !(p.canConvertToInt() && POINTS.contains(p.intValue())))
            throw new CaseError("invalid_point", "point must be null or 4, 5, 6, 8, 9, 10");
        if (fields.length == 6) {   // settle's fields: the dice too
            JsonNode d = c.get("dice");
            boolean ok = d.size() == 2;
            for (JsonNode x : d) ok = ok && x.isIntegralNumber() && x.canConvertToInt() && x.intValue() >= 1 && x.intValue() <= 6;
            if (!ok) throw new CaseError("invalid_dice", "dice must be two integers from 1 to 6");
        }
    }

    /** The largest odds a multiple allows behind {@code flat}, floored to the unit (the don't side limits the win). */
    private static BigInteger oddsLimit(TableConfig t, String bet, BigInteger flat, int point, TableConfig.Decimal m) {
        Ratio r = isDont(bet) ? oddsRatio(bet, point) : new Ratio(ONE, ONE);
        return m.num().multiply(flat).multiply(r.stake()).divide(m.denominator().multiply(r.win()).multiply(t.unit)).multiply(t.unit);
    }

    /** Checks 7-8 on odds above 0: increments, a whole win under exact, the maximum. */
    private static void checkOdds(TableConfig t, String bet, BigInteger flat, int point, BigInteger odds) {
        if (flat.mod(t.unit).signum() != 0) throw new CaseError("bad_increment", "flat not a multiple of the unit");
        if (odds.mod(t.unit).signum() != 0) throw new CaseError("bad_increment", "odds not a multiple of the unit");
        Ratio r = oddsRatio(bet, point);
        if (t.payoutRounding.equals("exact") && odds.multiply(r.win()).mod(r.stake()).signum() != 0)
            throw new CaseError("bad_increment", "the odds would win a fraction of a minor unit");
        if (odds.compareTo(oddsLimit(t, bet, flat, point, t.maxOdds.get(point))) > 0)
            throw new CaseError("above_maximum", "odds above the maximum");
    }

    private static BigInteger commission(TableConfig t, String bet, BigInteger flat, int point, BigInteger odds) {
        BigInteger excess = odds.subtract(oddsLimit(t, bet, flat, point, t.freeOdds.get(point))).max(BigInteger.ZERO);
        Ratio r = isDont(bet) ? oddsRatio(bet, point) : new Ratio(ONE, ONE);   // don't side: what the excess could win
        BigInteger n = t.commissionRate.num().multiply(excess).multiply(r.win());
        BigInteger d = t.commissionRate.denominator().multiply(r.stake()).multiply(t.commissionUnit);
        BigInteger k = switch (t.commissionRounding) {
            case "down" -> n.divide(d);
            case "up" -> n.add(d).subtract(ONE).divide(d);
            default -> n.multiply(TWO).add(d).divide(d.multiply(TWO));   // nearest, halves up
        };
        return k.multiply(t.commissionUnit);
    }

    private static ObjectNode result(String outcome, BigInteger flat, String flatStake, BigInteger flatWin, BigInteger odds,
                                     String oddsStake, BigInteger oddsWin) {
        ObjectNode r = Shell.NODES.objectNode().put("outcome", outcome).put("flat_win", flatWin).put("odds_win", oddsWin);
        r.putNull("point");
        r.put("flat_stake", flatStake).put("odds_stake", oddsStake);
        r.put("flat_returned", flatStake.equals("won") || flatStake.equals("returned") ? flat : BigInteger.ZERO);
        r.put("odds_returned", oddsStake.equals("won") || oddsStake.equals("returned") ? odds : BigInteger.ZERO);
        return r;
    }

    private static ObjectNode result(String outcome, BigInteger flat, String flatStake, BigInteger flatWin) {
        return result(outcome, flat, flatStake, flatWin, BigInteger.ZERO, "none", BigInteger.ZERO);
    }

    @Override public ObjectNode placeOdds(JsonNode config, JsonNode c) {
        TableConfig t = table(config);
        readCase(c, "bet", "flat", "point", "odds");
        String bet = c.get("bet").textValue();
        BigInteger flat = c.get("flat").bigIntegerValue(), odds = c.get("odds").bigIntegerValue();
        if (c.get("point").isNull()) throw new CaseError("no_point", "odds on a bet with no point");
        if (flat.signum() <= 0) throw new CaseError("not_positive", "flat must be above 0");
        if (odds.signum() <= 0) throw new CaseError("not_positive", "odds must be above 0");
        int point = c.get("point").intValue();
        checkOdds(t, bet, flat, point, odds);
        return Shell.NODES.objectNode().put("commission", commission(t, bet, flat, point, odds));
    }

    @Override public ObjectNode settle(JsonNode config, JsonNode c) {
        TableConfig t = table(config);
        readCase(c, "bet", "flat", "point", "odds", "dice", "odds_working");
        String bet = c.get("bet").textValue();
        BigInteger flat = c.get("flat").bigIntegerValue(), odds = c.get("odds").bigIntegerValue(), zero = BigInteger.ZERO;
        boolean noPoint = c.get("point").isNull(), dont = isDont(bet);
        if (noPoint && odds.signum() > 0) throw new CaseError("no_point", "odds on a bet with no point");
        if (flat.signum() <= 0) throw new CaseError("not_positive", "flat must be above 0");
        if (odds.signum() < 0) throw new CaseError("not_positive", "odds must be 0 or more");
        if (odds.signum() > 0) checkOdds(t, bet, flat, c.get("point").intValue(), odds);
        else if (flat.mod(t.unit).signum() != 0) throw new CaseError("bad_increment", "flat not a multiple of the unit");
        int total = c.get("dice").get(0).intValue() + c.get("dice").get(1).intValue();
        if (noPoint) {   // the come-out roll: no odds
            if (dont && total == t.bar) return result("push", flat, "returned", zero);
            if (total == 7 || total == 11) return dont ? result("lose", flat, "taken", zero) : result("win", flat, "won", flat);
            if (total == 2 || total == 3 || total == 12) return dont ? result("win", flat, "won", flat) : result("lose", flat, "taken", zero);
            return result("point", flat, "in_action", zero).put("point", total);
        }
        int point = c.get("point").intValue();
        String oddsStake = odds.signum() > 0 ? "in_action" : "none";
        if (total != 7 && total != point) return result("no_action", flat, "in_action", zero, odds, oddsStake, zero);
        if (odds.signum() > 0 && !c.get("odds_working").booleanValue()) oddsStake = "returned";   // odds off: neither paid nor taken
        boolean inAction = oddsStake.equals("in_action");
        if ((total == point) == dont) return result("lose", flat, "taken", zero, odds, inAction ? "taken" : oddsStake, zero);
        if (!inAction) return result("win", flat, "won", flat, odds, oddsStake, zero);
        Ratio r = oddsRatio(bet, point);
        return result("win", flat, "won", flat, odds, "won", odds.multiply(r.win()).divide(r.stake()));   // floored under down
    }
}
