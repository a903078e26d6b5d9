package dev.strait.proxy.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS implementation: OpenSSL (BoringSSL from netty-tcnative, shipped for linux-x86_64) where it
 * loads, the JDK's otherwise. Chosen once per process; {@code -Dstrait.tls.engine=jdk} forces the JDK
 * engine (tests of the fallback, or to rule the native library out when debugging).
 */
public enum TlsEngine {
    OPENSSL, JDK;

    private static final Logger log = LoggerFactory.getLogger(TlsEngine.class);
    private static volatile TlsEngine chosen;

    public static TlsEngine current() {
        TlsEngine e = chosen;
        if (e == null) {
            synchronized (TlsEngine.class) {
                if (chosen == null) {
                    chosen = choose();
                }
                e = chosen;
            }
        }
        return e;
    }

    private static TlsEngine choose() {
        String forced = System.getProperty("strait.tls.engine", "").toLowerCase(Locale.ROOT);
        if (forced.equals("jdk")) {
            log.info("TLS engine: jdk (forced by strait.tls.engine)");
            return JDK;
        }
        if (OpenSsl.isAvailable() && OpenSsl.isAlpnSupported()) {
            log.info("TLS engine: openssl ({})", OpenSsl.versionString());
            return OPENSSL;
        }
        Throwable why = OpenSsl.unavailabilityCause();
        log.info("TLS engine: jdk (OpenSSL not available here: {})", why == null ? "no ALPN support" : why.toString());
        return JDK;
    }

    SslProvider provider() {
        // OPENSSL, not OPENSSL_REFCNT: contexts are dropped with their snapshot and freed by the GC,
        // so a reload never has to know which connections still use an old one.
        return this == OPENSSL ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
