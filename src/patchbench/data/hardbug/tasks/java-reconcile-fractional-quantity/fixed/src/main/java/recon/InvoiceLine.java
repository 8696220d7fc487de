package recon;

import java.math.BigDecimal;
import java.util.Objects;

/** One billed item: a quantity (hours, pieces, kilograms...) at a unit price. */
public record InvoiceLine(String description, BigDecimal quantity, BigDecimal unitPrice) {
    public InvoiceLine {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(quantity, "quantity");
        Objects.requireNonNull(unitPrice, "unitPrice");
        if (quantity.signum() <= 0) {
            throw new IllegalArgumentException("quantity must be positive: " + quantity);
        }
    }

    public static InvoiceLine of(String description, String quantity, String unitPrice) {
        return new InvoiceLine(description, Amounts.parse(quantity), Amounts.parse(unitPrice));
    }

    /** quantity × unit price, exact. */
    public BigDecimal amount() {
        return quantity.multiply(unitPrice);
    }
}
