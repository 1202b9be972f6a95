package tablecert.kit;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A well-formed craps table config, parsed and checked in the contract's order (the first fault
 * is named). Multiples and the rate are exact: {@link Decimal}, digits over a power of ten.
 */
public final class TableConfig {
    /** A plain non-negative decimal string ("2.5", "0.05") as the exact fraction num / 10^scale. */
    public record Decimal(BigInteger num, int scale) {
        public BigInteger denominator() { return BigInteger.TEN.pow(scale); }
    }

    public static final int[] POINTS = {4, 5, 6, 8, 9, 10};
    private static final List<String> KEYS = List.of("unit", "free_odds", "max_odds", "commission_rate",
            "commission_rounding", "commission_unit", "payout_rounding", "bar");
    private static final Pattern PLAIN = Pattern.compile("(0|[1-9][0-9]*)(\\.[0-9]+)?");

    public BigInteger unit, commissionUnit;
    public final Map<Integer, Decimal> freeOdds = new HashMap<>(), maxOdds = new HashMap<>();
    public Decimal commissionRate;
    public String commissionRounding, payoutRounding;
    public int bar;

    public static TableConfig parse(JsonNode config) {
        if (config == null || !config.isObject()) throw new ConfigError("config: must be an object");
        for (String key : KEYS) if (!config.has(key)) throw new ConfigError(key + ": missing");
        if (config.size() != KEYS.size()) throw new ConfigError("config: unknown field");
        TableConfig t = new TableConfig();
        t.unit = positive(config, "unit");
        multiples(config, "free_odds", t.freeOdds);
        multiples(config, "max_odds", t.maxOdds);
        for (int p : POINTS) {
            Decimal f = t.freeOdds.get(p), m = t.maxOdds.get(p);
            if (f.num.multiply(m.denominator()).compareTo(m.num.multiply(f.denominator())) > 0)
                throw new ConfigError("free_odds." + p + ": above max_odds");
        }
        t.commissionRate = decimal(config.get("commission_rate"), "commission_rate");
        t.commissionRounding = choice(config, "commission_rounding", List.of("down", "nearest", "up"));
        t.commissionUnit = positive(config, "commission_unit");
        t.payoutRounding = choice(config, "payout_rounding", List.of("exact", "down"));
        JsonNode bar = config.get("bar");
        if (!bar.isIntegralNumber() || !(bar.bigIntegerValue().equals(BigInteger.valueOf(12)) || bar.bigIntegerValue().equals(BigInteger.TWO)))
            throw new ConfigError("bar: must be 12 or 2");
        t.bar = bar.intValue();
        return t;
    }

    private static Decimal decimal(JsonNode text, String field) {
        if (!text.isTextual()) throw new ConfigError(field + ": must be a decimal string");
        String s = text.textValue();
        if (s.length() > 100 || !PLAIN.matcher(s).matches()) throw new ConfigError(field + ": not a plain decimal string");
        int dot = s.indexOf('.');
        return dot < 0 ? new Decimal(new BigInteger(s), 0)
                : new Decimal(new BigInteger(s.substring(0, dot) + s.substring(dot + 1)), s.length() - dot - 1);
    }

    private static BigInteger positive(JsonNode config, String key) {
        JsonNode v = config.get(key);
        if (!v.isIntegralNumber() || v.bigIntegerValue().signum() <= 0)
            throw new ConfigError(key + ": must be a positive integer of minor units");
        return v.bigIntegerValue();
    }

    private static void multiples(JsonNode config, String key, Map<Integer, Decimal> into) {
        JsonNode table = config.get(key);
        if (!table.isObject()) throw new ConfigError(key + ": must be an object keyed \"4\"..\"10\"");
        for (int p : POINTS) if (!table.has(String.valueOf(p))) throw new ConfigError(key + "." + p + ": missing point");
        if (table.size() != POINTS.length) throw new ConfigError(key + ": holds a key that is not a point");
        for (int p : POINTS) into.put(p, decimal(table.get(String.valueOf(p)), key + "." + p));
    }

    private static String choice(JsonNode config, String key, List<String> allowed) {
        JsonNode v = config.get(key);
        if (!v.isTextual() || !allowed.contains(v.textValue())) throw new ConfigError(key + ": not one of " + allowed);
        return v.textValue();
    }
}
