package recon;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/** Settles open invoices with the payments of a bank statement. See the README for the rules. */
public final class Reconciler {

    /** What a payment must agree on with an invoice to settle it. */
    private record Key(String customer, BigDecimal amount) {
        static Key of(String customer, BigDecimal amount) {
            // BigDecimal's equals and hashCode tell 120.30 from 120.300 (the scale is part of the
            // value); a key compares values only, so every amount is reduced to its shortest scale.
            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount.stripTrailingZeros());
        }
    }

    private static final Comparator<Invoice> DUE_FIRST =
            Comparator.comparing(Invoice::dueDate).thenComparing(Invoice::id);

    /**
     * Matches {@code payments}, in statement order, against {@code invoices}.
     *
     * @return the matches in payment order, the payments that settled nothing (in statement order) and
     *     the invoices left open (in the order given)
     */
    public Reconciliation reconcile(List<Invoice> invoices, List<Payment> payments) {
        Map<Key, PriorityQueue<Invoice>> open = new HashMap<>();
        for (Invoice invoice : invoices) {
            open.computeIfAbsent(Key.of(invoice.customer(), invoice.total()), k -> new PriorityQueue<>(DUE_FIRST))
                    .add(invoice);
        }
        List<Match> matches = new ArrayList<>();
        List<Payment> unmatched = new ArrayList<>();
        Set<Invoice> settled = new LinkedHashSet<>();
        for (Payment payment : payments) {
            PriorityQueue<Invoice> candidates = open.get(Key.of(payment.customer(), payment.amount()));
            Invoice invoice = candidates == null ? null : candidates.poll();
            if (invoice == null) {
                unmatched.add(payment);
            } else {
                matches.add(new Match(invoice, payment));
                settled.add(invoice);
            }
        }
        List<Invoice> stillOpen = new ArrayList<>();
        for (Invoice invoice : invoices) {
            if (!settled.contains(invoice)) {
                stillOpen.add(invoice);
            }
        }
        return new Reconciliation(matches, unmatched, stillOpen);
    }
}
