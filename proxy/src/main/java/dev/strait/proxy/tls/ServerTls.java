package dev.strait.proxy.tls;

import dev.strait.model.Config;
import dev.strait.model.ConfigError;
import dev.strait.proxy.tls.ocsp.OcspStaple;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS side of a snapshot: one {@link SniTable} per TLS listener, built from the config's
 * {@code listeners[].tls.certificates}. Contexts are cached by the content of their PEM, so a reload
 * (or a control-channel snapshot) that leaves a certificate alone reuses its context instead of
 * parsing and checking thousands of keys again.
 *
 * <p>TLS 1.3 and 1.2 (or 1.3 alone: {@code minVersion}), the ciphers of RFC 9113 9.2.2 (ECDHE with AES-GCM or
 * ChaCha20-Poly1305) or the listener's {@code ciphers}, ALPN {@code h2} then {@code http/1.1}.
 */
public final class ServerTls {
    private static final int CACHE_SIZE = 20_000;
    private static final Map<String, Built> CACHE = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Built> e) {
            return size() > CACHE_SIZE;
        }
    };

    private static final Logger log = LoggerFactory.getLogger(ServerTls.class);

    /**
     * A certificate's contexts: the plain one, and those that ask for client certificates, one per policy and made
     * on the first handshake that needs it (then kept with the certificate, across snapshots).
     */
    private record Built(SslContext context, List<String> names, Instant notBefore, Instant notAfter,
                         PrivateKey key, X509Certificate[] chain, String id,
                         java.util.concurrent.ConcurrentHashMap<String, SslContext> asking, boolean ocsp,
                         OcspStaple staple, String unstapled, boolean mustStaple, Protocols protocols) {
        SslContext asking(ClientValidationPolicy policy) {
            SslContext c = asking.get(policy.askKey());
            if (c != null) {
                return c;
            }
            try {
                c = newContext(key, chain, id, policy, ocsp, protocols);
            } catch (SSLException | RuntimeException e) {
                // The same key and chain made the plain context: this cannot be the certificate's fault.
                throw new IllegalStateException("cannot make a client-certificate context: " + e.getMessage(), e);
            }
            SslContext raced = asking.putIfAbsent(policy.askKey(), c);
            return raced != null ? raced : c;
        }
    }

    /**
     * A listener's versions and TLS 1.2 suites (its {@code minVersion} and {@code ciphers}); {@code key} tells them
     * apart in the context cache, empty for the default.
     */
    record Protocols(String[] versions, List<String> ciphers, String key) {
        /** TLS 1.3 and 1.2; the suites of RFC 9113 9.2.2 (ECDHE with AES-GCM or ChaCha20-Poly1305). */
        static final Protocols DEFAULT = new Protocols(new String[] {"TLSv1.3", "TLSv1.2"}, Http2SecurityUtil.CIPHERS, "");
        /** TLS 1.3's suites: the JDK's engine takes them from the same list, BoringSSL always offers its own. */
        private static final List<String> TLS13 = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                "TLS_CHACHA20_POLY1305_SHA256");

        static Protocols of(Config.Tls tls) {
            if (tls.minVersion() == Config.TlsVersion.TLS_1_2 && tls.ciphers().isEmpty()) {
                return DEFAULT;
            }
            String[] versions = tls.minVersion() == Config.TlsVersion.TLS_1_3 ? new String[] {"TLSv1.3"}
                    : DEFAULT.versions();
            List<String> ciphers = tls.ciphers().isEmpty() ? DEFAULT.ciphers() : concat(TLS13, tls.ciphers());
            return new Protocols(versions, ciphers, "+" + String.join(",", versions) + "/" + String.join(":", ciphers));
        }

        private static List<String> concat(List<String> a, List<String> b) {
            List<String> out = new ArrayList<>(a);
            out.addAll(b);
            return List.copyOf(out);
        }
    }

    private final Map<String, SniTable> listeners;
    private final String fingerprint;
    private final Set<Path> files;
    private final List<String> warnings;

    private final boolean anyValidation;
    /** The staples of the certificates of listeners with {@code ocspStapling}: the stapler keeps them fresh. */
    private final List<OcspStaple> staples;

    private ServerTls(Map<String, SniTable> listeners, String fingerprint, Set<Path> files, List<String> warnings,
                      List<OcspStaple> staples) {
        this.listeners = listeners;
        this.staples = staples;
        this.anyValidation = listeners.values().stream().anyMatch(SniTable::validatesClients);
        this.fingerprint = fingerprint;
        this.files = files;
        this.warnings = warnings;
    }

    public static final ServerTls NONE = new ServerTls(Map.of(), "", Set.of(), List.of(), List.of());

    /**
     * Certificates served that clients will refuse (expired, or not valid yet), each with its field path.
     * They are served all the same, as nginx and Envoy do: refusing the config would not bring a valid
     * certificate, only stop every other change (and a renewal that comes late) from being applied.
     */
    public List<String> warnings() {
        return warnings;
    }

    /** The OCSP staples of the certificates served where {@code ocspStapling} asks for them (ADR 0104). */
    public List<OcspStaple> staples() {
        return staples;
    }

    /** The table of a TLS listener, or {@code null}. */
    public SniTable listener(String name) {
        return listeners.get(name);
    }

    /**
     * Whether a TLS listener asks clients for certificates for {@code host} (ADR 0075): such a host is not served
     * over cleartext, where no certificate can be shown, but for a redirect to https.
     */
    public boolean validatesClients(String host) {
        if (!anyValidation) {
            return false;
        }
        for (SniTable t : listeners.values()) {
            if (t.policyFor(host) != null) {
                return true;
            }
        }
        return false;
    }

    /** A digest of every certificate and key served: a reload that changes only file contents changes this. */
    public String fingerprint() {
        return fingerprint;
    }

    /** The certificate and key files read (inline PEM has none): their directories are watched for changes. */
    public Set<Path> files() {
        return files;
    }

    /** The hosts listener {@code name} passes through, with their route and upstream (the parser made them unique). */
    private static Map<String, SniTable.Passthrough> passthrough(Config config, String name) {
        Map<String, SniTable.Passthrough> out = new HashMap<>();
        for (dev.strait.model.Route r : config.routes()) {
            if (r.tlsPassthrough() != null && r.servedOn(name)) {
                SniTable.Passthrough p = new SniTable.Passthrough(r.name(), r.tlsPassthrough().upstream(),
                        r.tlsPassthrough().proxyProtocol());
                r.hosts().forEach(h -> out.putIfAbsent(h, p));
            }
        }
        return out;
    }

    /** Builds every TLS listener's table, adding an error with its field path for each bad certificate or key. */
    public static ServerTls build(Config config, List<ConfigError> errors) {
        if (config.listeners().stream().noneMatch(l -> l.tls() != null)) {
            return NONE;
        }
        MessageDigest all = sha256();
        Map<String, SniTable> tables = new LinkedHashMap<>();
        Set<Path> files = new LinkedHashSet<>();
        List<String> warnings = new ArrayList<>();
        Map<OcspStaple, Boolean> staples = new java.util.IdentityHashMap<>();
        Instant now = Instant.now();
        for (int i = 0; i < config.listeners().size(); i++) {
            Config.Listener l = config.listeners().get(i);
            if (l.tls() == null) {
                continue;
            }
            String base = "listeners[" + i + "].tls.certificates";
            boolean stapling = TlsEngine.current() == TlsEngine.OPENSSL && io.netty.handler.ssl.OpenSsl.isOcspSupported();
            boolean ocsp = l.tls().ocspStapling() && !l.tls().certificates().isEmpty();
            Protocols protocols = Protocols.of(l.tls());
            all.update(protocols.key().getBytes(StandardCharsets.US_ASCII));
            if (ocsp && !stapling) {
                warnings.add("listeners[" + i + "].tls.ocspStapling: needs the OpenSSL engine, and this process runs the"
                        + " JDK's (docs/config.md, TLS): no handshake gets a staple");
                ocsp = false;
            }
            // No certificates (the parser allows it only where routes pass TLS through): the table passes their
            // hosts through and closes every other handshake.
            List<ServerCertificate> certs = new ArrayList<>();
            for (int j = 0; j < l.tls().certificates().size(); j++) {
                Config.Certificate c = l.tls().certificates().get(j);
                String path = base + "[" + j + "]";
                try {
                    String certPem = PemMaterial.text(c.cert(), path + ".cert");
                    String keyPem = PemMaterial.text(c.key(), path + ".key");
                    if (!PemMaterial.isInline(c.cert())) {
                        files.add(Path.of(c.cert()).toAbsolutePath());
                    }
                    if (!PemMaterial.isInline(c.key())) {
                        files.add(Path.of(c.key()).toAbsolutePath());
                    }
                    String id = HexFormat.of().formatHex(sha256(certPem + "\u0000" + keyPem));
                    all.update(id.getBytes(StandardCharsets.US_ASCII));
                    boolean fromFile = c.ocspResponse() != null && stapling;
                    if (c.ocspResponse() != null && !stapling) {
                        warnings.add(path + ".ocspResponse: needs the OpenSSL engine, and this process runs the JDK's"
                                + " (docs/config.md, TLS): not stapled");
                    }
                    Built b = cached(id, certPem, keyPem, path, ocsp || fromFile, protocols);
                    OcspStaple staple = b.staple();
                    if (fromFile) {
                        staple = answerFile(c.ocspResponse(), b, path + ".ocspResponse", now, files, warnings);
                    } else if (staple != null) {
                        staples.put(staple, Boolean.TRUE);
                    }
                    certs.add(new ServerCertificate(b.context(), b.names(), b::asking, staple));
                    if (staple != null || fromFile) {
                        // stapled, from the stapler or from the file
                    } else if (b.unstapled() != null) {
                        warnings.add(path + ".cert: OCSP stapling: the certificate for " + b.names() + " cannot be"
                                + " stapled: " + b.unstapled());
                    }
                    if (staple == null && !fromFile && b.mustStaple()) {
                        warnings.add(path + ".cert: the certificate for " + b.names() + " is must-staple (its TLS"
                                + " feature extension asks for status_request), and "
                                + (l.tls().ocspStapling() ? "it cannot be stapled"
                                        : "listeners[" + i + "].tls.ocspStapling is not true")
                                + ": clients that honour it (Firefox) refuse its handshakes");
                    }
                    String w = now.isAfter(b.notAfter()) ? "expired at " + b.notAfter()
                            : now.isBefore(b.notBefore()) ? "not valid before " + b.notBefore() : null;
                    if (w != null) {
                        warnings.add(path + ".cert: the certificate for " + b.names() + " " + w
                                + "; clients will refuse it");
                    }
                } catch (PemMaterial.Invalid e) {
                    errors.add(new ConfigError(e.field, e.getMessage()));
                }
            }
            Map<String, ClientValidationPolicy> policies = new LinkedHashMap<>();
            boolean policiesOk = true;
            for (int j = 0; j < l.tls().clientValidation().size(); j++) {
                Config.ClientValidation cv = l.tls().clientValidation().get(j);
                String path = "listeners[" + i + "].tls.clientValidation[" + j + "].ca";
                try {
                    List<X509Certificate> cas = List.of();
                    if (cv.ca() != null) {
                        String caPem = PemMaterial.text(cv.ca(), path);
                        if (!PemMaterial.isInline(cv.ca())) {
                            files.add(Path.of(cv.ca()).toAbsolutePath());
                        }
                        cas = PemMaterial.certificates(caPem, path);
                    }
                    List<java.security.cert.X509CRL> crls = null;
                    if (cv.crl() != null) {
                        String crlPath = "listeners[" + i + "].tls.clientValidation[" + j + "].crl";
                        String crlPem = PemMaterial.text(cv.crl(), crlPath);
                        if (!PemMaterial.isInline(cv.crl())) {
                            files.add(Path.of(cv.crl()).toAbsolutePath());
                        }
                        crls = PemMaterial.crls(crlPem, crlPath);
                        for (java.security.cert.X509CRL crl : crls) {
                            if (!signedByOneOf(crl, cas)) {
                                throw new PemMaterial.Invalid(crlPath, "the list of " + crl.getIssuerX500Principal()
                                        .getName() + " is not signed by a CA of ca");
                            }
                        }
                    }
                    ClientValidationPolicy policy = new ClientValidationPolicy(cv, cas, crls);
                    all.update(policy.key().getBytes(StandardCharsets.US_ASCII));
                    cv.hosts().forEach(h -> policies.put(h, policy));
                } catch (PemMaterial.Invalid e) {
                    errors.add(new ConfigError(e.field, e.getMessage()));
                    policiesOk = false;
                }
            }
            if (certs.size() == l.tls().certificates().size() && policiesOk) {
                tables.put(l.name(), new SniTable(certs, policies, passthrough(config, l.name())));
            }
        }
        for (String w : warnings) {
            log.warn("{}", w);
        }
        return new ServerTls(Map.copyOf(tables), hex(all.digest()), Set.copyOf(files), List.copyOf(warnings),
                List.copyOf(staples.keySet()));
    }

    /**
     * The staple of a certificate's {@code ocspResponse} file, read at every build (whoever writes it renews it; its
     * directory is watched like the certificate's). One that is no good answer about the certificate is a config
     * error with its field path; an expired one a warning, and not stapled (a late renewal must not block every
     * other change, as an expired certificate does not).
     */
    private static OcspStaple answerFile(String file, Built b, String field, Instant now, Set<Path> files,
                                         List<String> warnings) throws PemMaterial.Invalid {
        Path p = Path.of(file).toAbsolutePath();
        files.add(p);
        byte[] der;
        try {
            der = java.nio.file.Files.readAllBytes(p);
        } catch (java.io.IOException e) {
            throw new PemMaterial.Invalid(field, "cannot read " + p + ": " + e);
        }
        OcspStaple s;
        try {
            s = OcspStaple.ofAnswer(List.of(b.chain()), b.names(), der, now);
        } catch (OcspStaple.Unusable e) {
            throw new PemMaterial.Invalid(field, e.getMessage());
        }
        if (s.response() == null) {
            warnings.add(field + ": the OCSP answer for " + b.names() + " expired at " + s.heldUntil()
                    + "; handshakes go without it until the file is renewed");
        }
        return s;
    }

    /**
     * The contexts of a certificate and key, from the cache when they were built before. With {@code ocsp}, contexts
     * that staple (another cache entry: a context staples only when made to) and the certificate's staple, or why it
     * has none.
     */
    private static Built cached(String id, String certPem, String keyPem, String path, boolean ocsp,
                                Protocols protocols) throws PemMaterial.Invalid {
        String cacheKey = (ocsp ? id + "+ocsp" : id) + protocols.key();
        synchronized (CACHE) {
            Built b = CACHE.get(cacheKey);
            if (b != null) {
                return b;
            }
        }
        List<X509Certificate> chain = PemMaterial.certificates(certPem, path + ".cert");
        PrivateKey key = PemMaterial.privateKey(keyPem, path + ".key");
        PemMaterial.checkPair(chain.get(0), key, path + ".key");
        SslContext ctx;
        try {
            ctx = newContext(key, chain.toArray(new X509Certificate[0]), id, null, ocsp, protocols);
        } catch (SSLException | RuntimeException e) {
            throw new PemMaterial.Invalid(path, "cannot use this certificate and key: " + e.getMessage());
        }
        List<String> names = List.copyOf(ServerCertificate.names(chain.get(0)));
        OcspStaple staple = null;
        String unstapled = null;
        if (ocsp) {
            try {
                staple = OcspStaple.of(chain, names);
                if (staple == null) {
                    // Not a mistake: its CA has no OCSP (more and more do not). Said once, not at every load.
                    log.info("{}.cert: the certificate for {} names no OCSP responder: nothing to staple", path, names);
                }
            } catch (OcspStaple.Unusable e) {
                unstapled = e.getMessage();
            }
        }
        Built b = new Built(ctx, names, chain.get(0).getNotBefore().toInstant(), chain.get(0).getNotAfter().toInstant(),
                key, chain.toArray(new X509Certificate[0]), id, new java.util.concurrent.ConcurrentHashMap<>(), ocsp,
                staple, unstapled, OcspStaple.mustStaple(chain.get(0)), protocols);
        synchronized (CACHE) {
            CACHE.put(cacheKey, b);
        }
        return b;
    }

    /**
     * A server context for a certificate; with a policy, one that asks for a client certificate (any: the policy
     * judges it after the handshake) naming the policy's CAs.
     */
    private static SslContext newContext(PrivateKey key, X509Certificate[] chain, String id,
                                         ClientValidationPolicy policy, boolean ocsp, Protocols protocols)
            throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forServer(key, chain).enableOcsp(ocsp);
        if (policy != null) {
            builder.trustManager(policy.trustManager()).clientAuth(io.netty.handler.ssl.ClientAuth.OPTIONAL);
        }
        SslContext ctx = builder
                    .sslProvider(TlsEngine.current().provider())
                    .protocols(protocols.versions())
                    .ciphers(protocols.ciphers(), SupportedCipherSuiteFilter.INSTANCE)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(
                            ApplicationProtocolConfig.Protocol.ALPN,
                            // The only modes both engines support: a client without a common protocol gets
                            // no ALPN answer and speaks HTTP/1.1.
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                    .sessionTimeout(TicketKeys.ROTATE_HOURS * 3600)
                    .build();
        if (ctx.sessionContext() instanceof io.netty.handler.ssl.OpenSslServerSessionContext sessions) {
            // Netty gives every server context the same session id context, so a session made for one
            // certificate would resume under another SNI name (the client keeps the first certificate):
            // one id context per certificate stops that. Per policy too: a session made without a client
            // certificate must never resume where one is asked for (OpenSSL refuses a session, ticket or
            // not, whose id context differs).
            byte[] sid = HexFormat.of().parseHex(id);
            if (policy != null) {
                sid = sha256(id + "/" + policy.askKey());
            }
            sessions.setSessionIdContext(java.util.Arrays.copyOf(sid, 32));
        }
        TicketKeys.apply(ctx);
        return ctx;
    }

    private static boolean signedByOneOf(java.security.cert.X509CRL crl, List<X509Certificate> cas) {
        for (X509Certificate ca : cas) {
            if (ca.getSubjectX500Principal().equals(crl.getIssuerX500Principal())) {
                try {
                    crl.verify(ca.getPublicKey());
                    return true;
                } catch (java.security.GeneralSecurityException e) {
                    // another CA of the same name may have signed it
                }
            }
        }
        return false;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] sha256(String s) {
        return sha256().digest(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b, 0, 8);
    }
}
