package dev.strait.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.testing.CapturedAccessLog;
import dev.strait.proxy.testing.ProxyHarness;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProxyMetricsTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void accessLogLinesDroppedAreOnMetrics() throws Exception {
        // A log that can take nothing (closed: every line is dropped, as when its queue is full).
        AccessLog full = new AccessLog(new ByteArrayOutputStream());
        full.close();
        CapturedAccessLog.startWith(h, "routes: [ { name: site, hosts: [ \"*\" ], rules: [ { respond: { body: ok } } ] } ]",
                full);
        assertThat(h.metrics.scrape()).contains("strait_access_log_dropped_total 0.0");
        h.get("/a");
        h.get("/b");
        assertThat(full.dropped()).isEqualTo(2);
        assertThat(h.metrics.scrape()).contains("strait_access_log_dropped_total 2.0");
    }

    @Test
    void aProxyWithoutAnAccessLogExportsNoDrops() {
        assertThat(new ProxyMetrics().scrape()).contains("strait_access_log_dropped_total 0.0");
    }
}
