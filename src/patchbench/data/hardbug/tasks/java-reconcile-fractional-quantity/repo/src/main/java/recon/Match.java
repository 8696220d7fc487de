package recon;

/** A payment that settled an invoice. */
public record Match(Invoice invoice, Payment payment) {}
