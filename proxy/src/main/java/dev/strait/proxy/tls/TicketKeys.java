package dev.strait.proxy.tls;

import io.netty.handler.ssl.OpenSslContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.SslContext;
import java.security.SecureRandom;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Session ticket keys for the OpenSSL contexts, rotated: every {@link #ROTATE_HOURS} hours each
 * context gets a new key for new tickets and keeps the one before for decrypting (resumption for up
 * to twice that long). Keys live only in memory.
 *
 * <p>Each certificate's context has keys of its own (and its own session id context, see ServerTls):
 * a ticket made for one certificate never resumes a session under another SNI name.
 */
final class TicketKeys {
    static final long ROTATE_HOURS = 12;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Map<OpenSslContext, OpenSslSessionTicketKey[]> CONTEXTS = new WeakHashMap<>();
    private static ScheduledExecutorService rotator;

    private TicketKeys() {}

    /** Gives a new context its keys and keeps it (weakly) for the next rotations. */
    static synchronized void apply(SslContext context) {
        if (context instanceof OpenSslContext o) {
            OpenSslSessionTicketKey[] keys = {newKey()};
            o.sessionContext().setTicketKeys(keys);
            CONTEXTS.put(o, keys);
            if (rotator == null) {
                rotator = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "strait-tls-ticket-keys");
                    t.setDaemon(true);
                    return t;
                });
                rotator.scheduleAtFixedRate(TicketKeys::rotate, ROTATE_HOURS, ROTATE_HOURS, TimeUnit.HOURS);
            }
        }
    }

    static synchronized void rotate() {
        for (Map.Entry<OpenSslContext, OpenSslSessionTicketKey[]> e : CONTEXTS.entrySet()) {
            OpenSslSessionTicketKey[] keys = {newKey(), e.getValue()[0]};
            e.getKey().sessionContext().setTicketKeys(keys);
            e.setValue(keys);
        }
    }

    private static OpenSslSessionTicketKey newKey() {
        byte[] name = new byte[OpenSslSessionTicketKey.NAME_SIZE];
        byte[] hmac = new byte[OpenSslSessionTicketKey.HMAC_KEY_SIZE];
        byte[] aes = new byte[OpenSslSessionTicketKey.AES_KEY_SIZE];
        RANDOM.nextBytes(name);
        RANDOM.nextBytes(hmac);
        RANDOM.nextBytes(aes);
        return new OpenSslSessionTicketKey(name, hmac, aes);
    }
}
