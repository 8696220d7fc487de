package recon;

import java.math.BigDecimal;
import java.util.List;

/** The outcome of one reconciliation run. */
public record Reconciliation(List<Match> matches, List<Payment> unmatchedPayments, List<Invoice> openInvoices) {
    public Reconciliation {
        matches = List.copyOf(matches);
        unmatchedPayments = List.copyOf(unmatchedPayments);
        openInvoices = List.copyOf(openInvoices);
    }

    /** The sum of the payments that settled an invoice. */
    public BigDecimal matchedTotal() {
        return matches.stream().map(m -> m.payment().amount()).reduce(BigDecimal.ZERO, BigDecimal::add);
    }

    /** The sum of the invoices still open. */
    public BigDecimal openTotal() {
        return openInvoices.stream().map(Invoice::total).reduce(BigDecimal.ZERO, BigDecimal::add);
    }

    /** A plain-text report, one line per match, unmatched payment and open invoice. */
    public String report() {
        StringBuilder out = new StringBuilder();
        for (Match m : matches) {
            out.append("MATCHED ")
                    .append(m.invoice().id())
                    .append(' ')
                    .append(m.invoice().customer())
                    .append(' ')
                    .append(Amounts.format(m.invoice().total()))
                    .append(" <- ")
                    .append(m.payment().reference())
                    .append('\n');
        }
        for (Payment p : unmatchedPayments) {
            out.append("UNMATCHED ")
                    .append(p.reference())
                    .append(' ')
                    .append(p.customer())
                    .append(' ')
                    .append(Amounts.format(p.amount()))
                    .append('\n');
        }
        for (Invoice i : openInvoices) {
            out.append("OPEN ")
                    .append(i.id())
                    .append(' ')
                    .append(i.customer())
                    .append(' ')
                    .append(Amounts.format(i.total()))
                    .append(" due ")
                    .append(i.dueDate())
                    .append('\n');
        }
        return out.toString();
    }
}
