package recon;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/** An invoice issued to a customer. */
public record Invoice(String id, String customer, LocalDate dueDate, List<InvoiceLine> lines) {
    public Invoice {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(customer, "customer");
        Objects.requireNonNull(dueDate, "dueDate");
        lines = List.copyOf(lines);
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("invoice " + id + " has no lines");
        }
    }

    /** The sum of the lines' amounts, exact. */
    public BigDecimal total() {
        BigDecimal sum = BigDecimal.ZERO;
        for (InvoiceLine line : lines) {
            sum = sum.add(line.amount());
        }
        return sum;
    }
}
