package dev.strait.proxy.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.IpBlock;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** W3C Trace Context's {@code traceparent}, read and written as the specification's section 3.2 says. */
class RequestTraceTest {
    private static final String GIVEN = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final InetSocketAddress CLIENT = new InetSocketAddress("192.0.2.7", 50000);
    private static final InetSocketAddress BALANCER = new InetSocketAddress("10.1.2.3", 50000);

    private static Config.Tracing tracing(double percent, boolean trust, List<IpBlock> peers) {
        return new Config.Tracing("http://c/v1/traces", percent, "strait", trust, peers, Duration.ofSeconds(5));
    }

    @Test
    void theSpecificationsExampleIsRead() {
        RequestTrace t = RequestTrace.parse(GIVEN);
        assertThat(t).isNotNull();
        assertThat(t.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(t.spanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(t.sampled()).isTrue();
        assertThat(RequestTrace.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00").sampled()).isFalse();
        assertThat(RequestTrace.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03").sampled())
                .as("other flags aside").isTrue();
        assertThat(RequestTrace.parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds"))
                .as("a later version is read by version 00's fields").isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", // upper case
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // all-zero trace
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // all-zero parent
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // version ff
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", // version 00 with more
        "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", // a later version, no dash after
        "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01", // dashes misplaced
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g", // flags not hex
        "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // version not hex
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", // short
        " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // a space first
        "",
    })
    void whatIsNoTraceparentIsNotRead(String v) {
        assertThat(RequestTrace.parse(v)).isNull();
    }

    @Test
    void aTrustedClientsTraceIsContinuedWithASpanOfTheProxysOwn() {
        HttpHeaders h = new DefaultHttpHeaders().add("traceparent", GIVEN).add("tracestate", "congo=t61rcWkgMzE");
        RequestTrace t = RequestTrace.start(tracing(0, true, List.of()), h, CLIENT);
        assertThat(t.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(t.parentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(t.spanId()).matches("[0-9a-f]{16}").isNotEqualTo("00f067aa0ba902b7");
        assertThat(t.sampled()).as("the parent's decision, whatever the percent").isTrue();
        assertThat(h.getAll("traceparent")).containsExactly("00-4bf92f3577b34da6a3ce929d0e0e4736-" + t.spanId() + "-01");
        assertThat(h.get("tracestate")).as("kept with its trace").isEqualTo("congo=t61rcWkgMzE");
    }

    @Test
    void anUntrustedOrBrokenOrRepeatedTraceparentStartsATraceOfItsOwn() {
        Config.Tracing onlyBalancer = tracing(100, true, List.of(IpBlock.parse("10.0.0.0/8")));
        HttpHeaders fromBalancer = new DefaultHttpHeaders().add("traceparent", GIVEN);
        assertThat(RequestTrace.start(onlyBalancer, fromBalancer, BALANCER).traceId())
                .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");

        for (HttpHeaders h : List.of(
                new DefaultHttpHeaders().add("traceparent", GIVEN).add("tracestate", "congo=t61rcWkgMzE"),
                new DefaultHttpHeaders().add("traceparent", "00-nonsense").add("tracestate", "congo=t61rcWkgMzE"),
                new DefaultHttpHeaders().add("traceparent", GIVEN).add("traceparent", GIVEN))) {
            boolean fromClient = h.getAll("traceparent").size() == 1 && GIVEN.equals(h.get("traceparent"));
            RequestTrace t = RequestTrace.start(fromClient ? onlyBalancer : tracing(100, true, List.of()), h, CLIENT);
            assertThat(t.traceId()).matches("[0-9a-f]{32}").isNotEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
            assertThat(t.parentSpanId()).isNull();
            assertThat(t.sampled()).isTrue();
            assertThat(h.getAll("traceparent")).containsExactly(t.traceparent());
            assertThat(h.get("tracestate")).as("it described the other trace").isNull();
        }
    }

    @Test
    void newTracesAreSampledAtThePercentGiven() {
        int sampled = 0;
        for (int i = 0; i < 4000; i++) {
            HttpHeaders h = new DefaultHttpHeaders();
            RequestTrace t = RequestTrace.start(tracing(25, false, List.of()), h, CLIENT);
            sampled += t.sampled() ? 1 : 0;
            assertThat(h.get("traceparent")).endsWith(t.sampled() ? "-01" : "-00");
        }
        // 25% of 4,000 is 1,000, with a standard deviation of about 27: 850..1150 is over five of them.
        assertThat(sampled).isBetween(850, 1150);
        assertThat(RequestTrace.start(tracing(0, true, List.of()), new DefaultHttpHeaders(), CLIENT).sampled()).isFalse();
    }

    @Test
    void idsAreWrittenWithTheirLeadingZeros() {
        RequestTrace t = new RequestTrace(1, 2, 3, 4, true);
        assertThat(t.traceparent()).isEqualTo("00-00000000000000010000000000000002-0000000000000003-01");
        assertThat(t.parentSpanId()).isEqualTo("0000000000000004");
        assertThat(RequestTrace.parse(t.traceparent()).traceId()).isEqualTo(t.traceId());
    }
}
