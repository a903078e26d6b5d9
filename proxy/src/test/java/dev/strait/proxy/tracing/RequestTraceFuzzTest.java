package dev.strait.proxy.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * {@link RequestTrace#parse} on any text a client may send: it never fails, and what it reads is exactly
 * the ids the text holds, which the proxy writes back in version 00's form.
 */
class RequestTraceFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void whatIsReadIsWhatWasSent(FuzzedDataProvider data) {
        String v = data.consumeRemainingAsString();
        RequestTrace t = RequestTrace.parse(v);
        if (t == null) {
            return;
        }
        assertThat(v.substring(3, 35)).isEqualTo(t.traceId()).isNotEqualTo("0".repeat(32));
        assertThat(v.substring(36, 52)).isEqualTo(t.spanId()).isNotEqualTo("0".repeat(16));
        assertThat(v.length() == 55 || !v.startsWith("00")).isTrue();
        RequestTrace again = RequestTrace.parse(t.traceparent());
        assertThat(again.traceId()).isEqualTo(t.traceId());
        assertThat(again.spanId()).isEqualTo(t.spanId());
        assertThat(again.sampled()).isEqualTo(t.sampled());
    }
}
