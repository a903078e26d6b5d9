package dev.strait.operator.inject;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.strait.operator.publish.tls.ChannelPki;

/**
 * The admission webhook over HTTPS ({@code POST /inject}), on the JDK's HTTP server: a few requests a
 * second at most (one per pod creation), so no event loop is needed. The certificate can be replaced
 * while it runs ({@link #certificate}); each new TLS handshake uses the current one. {@code GET /healthz}
 * answers for probes.
 */
public final class WebhookServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebhookServer.class);
    /** An AdmissionReview of a large pod is tens of kilobytes; refuse what cannot be one. */
    static final int MAX_BODY = 4 * 1024 * 1024;

    private final AdmissionHandler handler;
    private volatile ChannelPki.Issued serving;
    private HttpsServer server;
    private ExecutorService executor;

    public WebhookServer(AdmissionHandler handler, ChannelPki.Issued serving) {
        this.handler = handler;
        this.serving = serving;
    }

    /** Replaces the serving certificate for the next handshakes. */
    public void certificate(ChannelPki.Issued issued) {
        this.serving = issued;
    }

    public WebhookServer start(InetSocketAddress address) throws IOException {
        SSLContext ssl;
        try {
            ssl = SSLContext.getInstance("TLS");
            ssl.init(new KeyManager[] {new CurrentKey()}, null, null);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS for the webhook", e);
        }
        server = HttpsServer.create(address, 64);
        server.setHttpsConfigurator(new HttpsConfigurator(ssl));
        executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "strait-webhook");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/inject", this::inject);
        server.createContext("/healthz", x -> answer(x, 200, "text/plain", "ok\n".getBytes(StandardCharsets.UTF_8)));
        server.start();
        log.info("sidecar injection webhook listening on https://{}/inject", address());
        return this;
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    private void inject(HttpExchange x) throws IOException {
        try (x) {
            if (!"POST".equals(x.getRequestMethod())) {
                answer(x, 405, "text/plain", "POST an AdmissionReview\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            byte[] body;
            try (InputStream in = x.getRequestBody()) {
                body = in.readNBytes(MAX_BODY + 1);
            }
            if (body.length > MAX_BODY) {
                answer(x, 413, "text/plain", "too large\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            byte[] out;
            try {
                out = handler.handle(body);
            } catch (IOException | RuntimeException e) {
                log.warn("refused a webhook request: {}", e.toString());
                answer(x, 400, "text/plain", (e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
                return;
            }
            answer(x, 200, "application/json", out);
        }
    }

    private static void answer(HttpExchange x, int status, String type, byte[] body) throws IOException {
        x.getResponseHeaders().set("Content-Type", type);
        x.sendResponseHeaders(status, body.length);
        x.getResponseBody().write(body);
        x.getResponseBody().close();
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    /** Always the current certificate, whatever the handshake asks for. */
    private final class CurrentKey extends X509ExtendedKeyManager {
        private static final String ALIAS = "webhook";

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return fits(keyType) ? ALIAS : null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return fits(keyType) ? ALIAS : null;
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return fits(keyType) ? new String[] {ALIAS} : null;
        }

        private boolean fits(String keyType) {
            return keyType.equals(serving.key().getAlgorithm());
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return new X509Certificate[] {serving.certificate()};
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return serving.key();
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return null;
        }
    }
}
