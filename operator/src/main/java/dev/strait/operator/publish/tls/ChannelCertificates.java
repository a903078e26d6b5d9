package dev.strait.operator.publish.tls;

import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serving side's TLS over time: the CA from the {@link CaStore} and a serving certificate signed
 * by it. {@link #refresh()} (at start and then twice a day) rotates the CA when a third of its life is
 * left and remakes the serving certificate when the CA changed or 30 of its 90 days are left; new
 * connections get the new context, open ones keep theirs.
 */
public final class ChannelCertificates implements Supplier<SslContext> {
    private static final Logger log = LoggerFactory.getLogger(ChannelCertificates.class);
    public static final Duration CHECK_EVERY = Duration.ofHours(12);

    private final CaStore store;
    private final List<String> names;
    private final Clock clock;
    private volatile SslContext context;
    private ChannelPki.Issued ca;
    private Instant servingUntil = Instant.MIN;

    public ChannelCertificates(CaStore store, List<String> names, Clock clock) {
        this.store = store;
        this.names = List.copyOf(names);
        this.clock = clock;
    }

    public synchronized ChannelCertificates refresh() throws IOException {
        Instant now = clock.instant();
        ChannelPki.Issued current = store.currentCa(now);
        boolean caChanged = ca == null || !ca.certificate().equals(current.certificate());
        if (caChanged || Duration.between(now, servingUntil).compareTo(Duration.ofDays(30)) < 0) {
            context = ChannelTls.server(current, names, now);
            servingUntil = now.plus(Duration.ofDays(90));
            ca = current;
            log.info("control channel TLS: serving certificate for {} signed by the CA valid until {}", names,
                    current.notAfter());
        }
        return this;
    }

    @Override
    public SslContext get() {
        return context;
    }
}
