package dev.strait.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LatencyBucketsTest {

    @Test
    void routeLatencyHasTheSixteenFixedBucketsAndInf() {
        ProxyMetrics metrics = new ProxyMetrics();
        ProxyMetrics.RouteMeters meters = metrics.route("r");
        meters.record(200, TimeUnit.MICROSECONDS.toNanos(300));
        meters.record(200, TimeUnit.MILLISECONDS.toNanos(3));
        meters.record(200, TimeUnit.MILLISECONDS.toNanos(700));
        meters.record(200, TimeUnit.SECONDS.toNanos(90));
        List<String> buckets = metrics.scrape().lines()
                .filter(l -> l.startsWith("strait_request_duration_seconds_bucket{route=\"r\""))
                .map(l -> l.substring(l.indexOf("le=")))
                .toList();
        assertThat(buckets).containsExactly(
                "le=\"5.0E-4\"} 1", "le=\"0.001\"} 1", "le=\"0.0025\"} 1", "le=\"0.005\"} 2", "le=\"0.01\"} 2",
                "le=\"0.025\"} 2", "le=\"0.05\"} 2", "le=\"0.1\"} 2", "le=\"0.25\"} 2", "le=\"0.5\"} 2",
                "le=\"1.0\"} 3", "le=\"2.5\"} 3", "le=\"5.0\"} 3", "le=\"10.0\"} 3", "le=\"30.0\"} 3", "le=\"60.0\"} 3",
                "le=\"+Inf\"} 4");
    }
}
