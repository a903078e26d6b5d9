package dev.strait.proxy.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** OpenTelemetry's environment variables for an exporter's fields, as its SDKs read them. */
class OtlpHeadersTest {
    @Test
    void pairsAreReadWithTheirValuesPercentDecoded() {
        assertThat(OtlpHeaders.parse("api-key=secret, Authorization=Basic%20dXNlcjpwYXNz,x-plus=a+b"))
                .containsExactly(Map.entry("api-key", "secret"), Map.entry("Authorization", "Basic dXNlcjpwYXNz"),
                        Map.entry("x-plus", "a+b"));
        assertThat(OtlpHeaders.parse(null)).isEmpty();
        assertThat(OtlpHeaders.parse("")).isEmpty();
    }

    @Test
    void anEntryThatIsNoFieldIsLeftOut() {
        assertThat(OtlpHeaders.parse("=x,noequals,bad name=1,ok=1,cr=a%0Db,empty=,broken=%zz"))
                .containsExactly(Map.entry("ok", "1"));
    }

    @Test
    void theTracesVariableWinsOverTheGeneralOne() {
        assertThat(OtlpHeaders.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_HEADERS", "a=1",
                "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "b=2"))).containsExactly(Map.entry("b", "2"));
        assertThat(OtlpHeaders.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_HEADERS", "a=1")))
                .containsExactly(Map.entry("a", "1"));
        assertThat(OtlpHeaders.fromEnvironment(Map.of())).isEmpty();
    }
}
