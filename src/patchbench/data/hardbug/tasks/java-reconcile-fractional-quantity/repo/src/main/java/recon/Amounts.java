package recon;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Parsing and display of monetary amounts. Amounts are kept exact; only display rounds. */
public final class Amounts {
    private Amounts() {}

    /**
     * Parses an amount as written by the bank or the billing system ({@code "120.30"}, {@code "600"}).
     *
     * @throws IllegalArgumentException if the text is not a plain decimal number
     */
    public static BigDecimal parse(String text) {
        String t = text.strip();
        if (!t.matches("-?\\d+(\\.\\d+)?")) {
            throw new IllegalArgumentException("not an amount: '" + text + "'");
        }
        return new BigDecimal(t);
    }

    /** An amount for reports: two decimals, half-even, never in exponent notation. */
    public static String format(BigDecimal amount) {
        return amount.setScale(2, RoundingMode.HALF_EVEN).toPlainString();
    }
}
