package dev.strait.proxy.testing;


import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The real proxy of a {@link ProxyHarness} with its access log on and written to memory, for tests that read
 * the JSON lines (ProxyHarness itself runs with the log off). Closed with the harness.
 */
public final class CapturedAccessLog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    public final AccessLog log;

    private CapturedAccessLog(AccessLog given) {
        this.log = given != null ? given : new AccessLog(out);
    }

    /** Starts {@code h}'s proxy from {@code yaml} (one listener named http is added; the log is on by default). */
    public static CapturedAccessLog start(ProxyHarness h, String yaml) throws Exception {
        return startWith(h, yaml, null);
    }

    /** The same with {@code log} (say, one already closed) instead of one that writes here. */
    public static CapturedAccessLog startWith(ProxyHarness h, String yaml, AccessLog log) throws Exception {
        CapturedAccessLog c = new CapturedAccessLog(log);
        h.serving = TestServing.serving(full(yaml));
        h.metrics = new ProxyMetrics();
        h.add(c.log);
        h.server = h.add(new ProxyServer(h.serving.snapshot().config(), h.serving, h.metrics, c.log).start());
        return c;
    }

    /** One worker, the upstream {@code app} at {@code endpoint}, a fixed answer at {@code /here} and the rest proxied. */
    public static String proxied(String endpoint, String extra) {
        return """
                workers: 1
                %s
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /here } } ]
                        respond: { body: "here" }
                      - backends: [ { upstream: app } ]
                """.formatted(extra, endpoint);
    }

    public static String full(String yaml) {
        return "listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\n" + yaml;
    }

    /** The lines written so far, parsed. */
    public List<JsonNode> lines() {
        List<JsonNode> lines = new ArrayList<>();
        for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!l.isEmpty()) {
                try {
                    lines.add(JSON.readTree(l));
                } catch (IOException e) {
                    throw new UncheckedIOException("not JSON: " + l, e);
                }
            }
        }
        return lines;
    }

    /** Waits until {@code n} lines are written, and returns them. */
    public List<JsonNode> await(int n) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> lines().size() >= n);
        return lines();
    }
}
