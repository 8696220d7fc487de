package recon;

import java.math.BigDecimal;
import java.util.Objects;

/** A credit on the bank statement: who paid, how much, and the bank's reference. */
public record Payment(String reference, String customer, BigDecimal amount) {
    public Payment {
        Objects.requireNonNull(reference, "reference");
        Objects.requireNonNull(customer, "customer");
        Objects.requireNonNull(amount, "amount");
    }

    public static Payment of(String reference, String customer, String amount) {
        return new Payment(reference, customer, Amounts.parse(amount));
    }
}
