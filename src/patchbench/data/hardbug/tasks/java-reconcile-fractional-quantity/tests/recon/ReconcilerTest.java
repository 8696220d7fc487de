package recon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReconcilerTest {

    private static Invoice invoice(String id, String customer, String due, InvoiceLine... lines) {
        return new Invoice(id, customer, LocalDate.parse(due), List.of(lines));
    }

    private static List<String> settled(Reconciliation r) {
        return r.matches().stream().map(m -> m.invoice().id() + "<-" + m.payment().reference()).toList();
    }

    private static List<String> unmatched(Reconciliation r) {
        return r.unmatchedPayments().stream().map(Payment::reference).toList();
    }

    private static List<String> open(Reconciliation r) {
        return r.openInvoices().stream().map(Invoice::id).toList();
    }

    // -- fail before the fix --------------------------------------------------------------------

    @Test
    void settlesInvoiceBilledForFractionalHours() {
        Invoice consulting = invoice("INV-301", "Northwind", "2026-03-31",
                InvoiceLine.of("consulting, hours", "2.5", "48.12"));
        Payment payment = Payment.of("BNK-88121", "NORTHWIND", "120.30");

        Reconciliation r = new Reconciler().reconcile(List.of(consulting), List.of(payment));

        assertEquals(List.of("INV-301<-BNK-88121"), settled(r));
        assertEquals(List.of(), unmatched(r));
        assertEquals(List.of(), open(r));
    }

    @Test
    void settlesWholeAmountPaidWithoutDecimals() {
        Invoice licences = invoice("INV-302", "Contoso", "2026-03-15",
                InvoiceLine.of("licence", "3", "150.00"),
                InvoiceLine.of("support", "1", "150.00"));
        Payment payment = Payment.of("BNK-88122", "Contoso", "600");

        Reconciliation r = new Reconciler().reconcile(List.of(licences), List.of(payment));

        assertEquals(List.of("INV-302<-BNK-88122"), settled(r));
        assertEquals(0, r.openTotal().signum());
        assertEquals(0, new BigDecimal("600.00").compareTo(r.matchedTotal()));
    }

    @Test
    void settlesEqualInvoicesDueFirstWhateverTheirLines() {
        Invoice february = invoice("INV-402", "Fabrikam", "2026-02-28",
                InvoiceLine.of("freight, kg", "0.5", "151.00"));
        Invoice january = invoice("INV-401", "Fabrikam", "2026-01-31",
                InvoiceLine.of("pallet", "1", "75.50"));
        Invoice march = invoice("INV-403", "Fabrikam", "2026-03-31",
                InvoiceLine.of("crate", "2", "37.75"));
        List<Payment> payments = List.of(
                Payment.of("BNK-1", "Fabrikam", "75.5"),
                Payment.of("BNK-2", "Fabrikam", "75.50"),
                Payment.of("BNK-3", "Fabrikam", "75.500"));

        Reconciliation r = new Reconciler().reconcile(List.of(february, january, march), payments);

        assertEquals(List.of("INV-401<-BNK-1", "INV-402<-BNK-2", "INV-403<-BNK-3"), settled(r));
        assertEquals(List.of(), open(r));
    }

    @Test
    void settlesPaymentBuiltFromTheBanksOwnAmount() {
        Invoice hosting = invoice("INV-311", "Tailspin", "2026-04-15",
                InvoiceLine.of("hosting, month", "1", "120.3"));
        // A statement importer builds the record itself from the bank API's BigDecimal.
        Payment payment = new Payment("BNK-90001", "Tailspin", new BigDecimal("120.30"));

        Reconciliation r = new Reconciler().reconcile(List.of(hosting), List.of(payment));

        assertEquals(List.of("INV-311<-BNK-90001"), settled(r));
        assertEquals(List.of(), unmatched(r));
    }

    // -- pass before and after --------------------------------------------------------------------

    @Test
    void settlesAmountsWrittenAlike() {
        Invoice i = invoice("INV-501", "Adatum", "2026-04-30", InvoiceLine.of("audit", "1", "980.00"));
        Reconciliation r = new Reconciler().reconcile(List.of(i), List.of(Payment.of("BNK-7", "Adatum", "980.00")));
        assertEquals(List.of("INV-501<-BNK-7"), settled(r));
    }

    @Test
    void neverRoundsToFindAMatch() {
        Invoice halfUnit = invoice("INV-502", "Litware", "2026-04-30",
                InvoiceLine.of("storage, months", "0.5", "199.99"));
        List<Payment> payments = List.of(
                Payment.of("BNK-8", "Litware", "100.00"),
                Payment.of("BNK-9", "Litware", "99.99"));

        Reconciliation r = new Reconciler().reconcile(List.of(halfUnit), payments);

        assertEquals(List.of(), settled(r));
        assertEquals(List.of("BNK-8", "BNK-9"), unmatched(r));
        assertEquals(List.of("INV-502"), open(r));
        assertEquals(new BigDecimal("99.995"), r.openTotal());
    }

    @Test
    void matchesOnlyTheSameCustomer() {
        Invoice i = invoice("INV-503", "Tailspin", "2026-04-30", InvoiceLine.of("tour", "2", "45.00"));
        Reconciliation r = new Reconciler().reconcile(List.of(i), List.of(Payment.of("BNK-10", "Wingtip", "90.00")));
        assertEquals(List.of("BNK-10"), unmatched(r));
        assertEquals(List.of("INV-503"), open(r));
    }

    @Test
    void comparesCustomerNamesWithoutCaseOrSurroundingSpaces() {
        Invoice i = invoice("INV-504", "Blue Yonder ", "2026-04-30", InvoiceLine.of("seats", "4", "12.25"));
        Reconciliation r = new Reconciler().reconcile(List.of(i), List.of(Payment.of("BNK-11", "  BLUE yonder", "49.00")));
        assertEquals(List.of("INV-504<-BNK-11"), settled(r));
    }

    @Test
    void settlesEachInvoiceOnce() {
        Invoice i = invoice("INV-505", "Proseware", "2026-04-30", InvoiceLine.of("hosting", "1", "30.00"));
        List<Payment> payments = List.of(Payment.of("BNK-12", "Proseware", "30.00"), Payment.of("BNK-13", "Proseware", "30.00"));
        Reconciliation r = new Reconciler().reconcile(List.of(i), payments);
        assertEquals(List.of("INV-505<-BNK-12"), settled(r));
        assertEquals(List.of("BNK-13"), unmatched(r));
    }

    @Test
    void reportShowsTwoDecimalsAndKeepsStatementOrder() {
        Invoice a = invoice("INV-601", "Woodgrove", "2026-05-31", InvoiceLine.of("design", "2", "60.00"));
        Invoice b = invoice("INV-602", "Woodgrove", "2026-06-30", InvoiceLine.of("print", "1", "1000"));
        List<Payment> payments = List.of(Payment.of("BNK-20", "Woodgrove", "5"), Payment.of("BNK-21", "Woodgrove", "120.00"));

        String report = new Reconciler().reconcile(List.of(a, b), payments).report();

        assertEquals("MATCHED INV-601 Woodgrove 120.00 <- BNK-21\n"
                + "UNMATCHED BNK-20 Woodgrove 5.00\n"
                + "OPEN INV-602 Woodgrove 1000.00 due 2026-06-30\n", report);
    }
}
