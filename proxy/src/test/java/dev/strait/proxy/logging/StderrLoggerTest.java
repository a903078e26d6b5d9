package dev.strait.proxy.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

class StderrLoggerTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private StderrLoggerFactory factory(Map<String, String> env, String... props) {
        Properties p = new Properties();
        for (int i = 0; i < props.length; i += 2) {
            p.setProperty(props[i], props[i + 1]);
        }
        return new StderrLoggerFactory(LogLevels.fromEnvironment(env, p), () -> out);
    }

    private String written() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aLineIsTimeLevelShortNameAndTheFormattedMessage() {
        Logger log = factory(Map.of()).getLogger("dev.strait.proxy.Main");
        log.info("admin on {} ({} workers)", "http://127.0.0.1:9901/", 2);
        assertThat(written()).matches(
                "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO Main - admin on http://127\\.0\\.0\\.1:9901/ \\(2 workers\\)\\R");
    }

    @Test
    void aTrailingThrowableIsPrintedWithItsStackTraceNotAsAnArgument() {
        Logger log = factory(Map.of()).getLogger("dev.strait.proxy.upstream.ProxyCall");
        log.warn("upstream {} failed", "app", new IllegalStateException("reset by peer"));
        assertThat(written())
                .contains(" WARN ProxyCall - upstream app failed")
                .contains("java.lang.IllegalStateException: reset by peer")
                .contains("\tat dev.strait.proxy.logging.StderrLoggerTest");
    }

    @Test
    void theDefaultIsInfoAndNettyWarn() {
        StderrLoggerFactory f = factory(Map.of());
        f.getLogger("dev.strait.proxy.Main").debug("not shown");
        f.getLogger("io.netty.channel.DefaultChannelPipeline").info("not shown either");
        f.getLogger("io.netty.channel.DefaultChannelPipeline").warn("shown");
        assertThat(written()).doesNotContain("not shown").contains("WARN DefaultChannelPipeline - shown");
    }

    @Test
    void theEnvironmentSetsTheDefaultAndPropertiesSetPrefixes() {
        StderrLoggerFactory f = factory(Map.of("STRAIT_LOG_LEVEL", "warn"),
                "strait.log.level.dev.strait.proxy.upstream", "debug",
                "strait.log.level.dev.strait.proxy.upstream.HealthChecker", "off");
        f.getLogger("dev.strait.proxy.Main").info("main info");
        f.getLogger("dev.strait.proxy.upstream.EndpointPool").debug("pool debug");
        f.getLogger("dev.strait.proxy.upstream.HealthChecker").error("health error");
        f.getLogger("dev.strait.proxy.upstreamish.Other").debug("not a child of the prefix");
        assertThat(written()).doesNotContain("main info").contains("DEBUG EndpointPool - pool debug")
                .doesNotContain("health error").doesNotContain("not a child");
    }

    @Test
    void thePropertyOverridesTheEnvironmentAndABadLevelFallsBackToInfo() {
        StderrLoggerFactory f = factory(Map.of("STRAIT_LOG_LEVEL", "error"), "strait.log.level", "debug");
        f.getLogger("a.B").debug("debug shown");
        assertThat(written()).contains("DEBUG B - debug shown");

        PrintStream err = System.err;
        ByteArrayOutputStream complaint = new ByteArrayOutputStream();
        System.setErr(new PrintStream(complaint, true, StandardCharsets.UTF_8));
        try {
            StderrLoggerFactory bad = factory(Map.of("STRAIT_LOG_LEVEL", "loud"));
            bad.getLogger("a.C").info("info shown");
            bad.getLogger("a.C").debug("debug hidden");
        } finally {
            System.setErr(err);
        }
        assertThat(complaint.toString(StandardCharsets.UTF_8))
                .contains("STRAIT_LOG_LEVEL=loud is not a log level").contains("using info");
        assertThat(written()).contains("INFO C - info shown").doesNotContain("debug hidden");
    }

    @Test
    void oneLoggerPerName() {
        StderrLoggerFactory f = factory(Map.of());
        assertThat(f.getLogger("a.B")).isSameAs(f.getLogger("a.B"));
    }
}
