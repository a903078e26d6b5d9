package dev.strait.proxy.tracing;

/**
 * What one try at sending a batch came to, over either transport.
 *
 * @param taken    the collector took the batch (its answer may still reject some spans)
 * @param retry    not taken, and worth another try (the collector away, overloaded, or the connection lost)
 * @param rejected of a taken batch, the spans the collector said it dropped (OTLP's {@code partial_success})
 * @param why      the collector's words or the failure, for the log; null when all went well
 */
record Delivery(boolean taken, boolean retry, long rejected, String why) {
    static final Delivery TAKEN = new Delivery(true, false, 0, null);

    /** Taken, with OTLP's {@code partial_success}: spans the collector rejected, and/or its message. */
    static Delivery partly(long rejected, String message) {
        return rejected <= 0 && (message == null || message.isEmpty()) ? TAKEN
                : new Delivery(true, false, Math.max(0, rejected), message == null || message.isEmpty() ? null : message);
    }

    static Delivery retry(String why) {
        return new Delivery(false, true, 0, why);
    }

    static Delivery refused(String why) {
        return new Delivery(false, false, 0, why);
    }
}
