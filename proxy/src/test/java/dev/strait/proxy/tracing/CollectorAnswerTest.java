package dev.strait.proxy.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** How a collector's answer is read: OTLP's partial success in each encoding, and gRPC's statuses. */
class CollectorAnswerTest {

    @Test
    void partialSuccessInProtobufAsOpenTelemetrysClassesWriteIt() {
        byte[] answer = ExportTraceServiceResponse.newBuilder().setPartialSuccess(ExportTracePartialSuccess.newBuilder()
                .setRejectedSpans(300).setErrorMessage("spans older than 1h dropped")).build().toByteArray();
        assertThat(OtlpProtobuf.partialSuccess(answer)).isEqualTo(new Delivery(true, false, 300, "spans older than 1h dropped"));
        assertThat(OtlpProtobuf.partialSuccess(new byte[0])).as("an empty answer: all taken").isEqualTo(Delivery.TAKEN);
        assertThat(OtlpProtobuf.partialSuccess(ExportTraceServiceResponse.newBuilder().setPartialSuccess(
                ExportTracePartialSuccess.newBuilder().setErrorMessage("slow down")).build().toByteArray()))
                .as("a warning without rejections").isEqualTo(new Delivery(true, false, 0, "slow down"));
        // Fields a later schema may add are passed over; a cut answer is taken as all taken, not an error.
        byte[] withUnknown = concat(new byte[] {(byte) (7 << 3 | 5), 1, 2, 3, 4, (byte) (9 << 3), (byte) 0x96, 1}, answer);
        assertThat(OtlpProtobuf.partialSuccess(withUnknown).rejected()).isEqualTo(300);
        for (int cut = 1; cut < answer.length; cut++) {
            Delivery d = OtlpProtobuf.partialSuccess(Arrays.copyOf(answer, cut));
            assertThat(d.taken()).as("cut at %d", cut).isTrue();
        }
    }

    @Test
    void partialSuccessInJson() {
        assertThat(OtlpHttp.partialSuccess("{\"partialSuccess\":{\"rejectedSpans\":\"2\",\"errorMessage\":\"too big\"}}"
                .getBytes(StandardCharsets.UTF_8))).isEqualTo(new Delivery(true, false, 2, "too big"));
        assertThat(OtlpHttp.partialSuccess("{}".getBytes(StandardCharsets.UTF_8))).isEqualTo(Delivery.TAKEN);
        assertThat(OtlpHttp.partialSuccess("not json".getBytes(StandardCharsets.UTF_8))).isEqualTo(Delivery.TAKEN);
    }

    @Test
    void grpcStatusesAsOtlpTreatsThem() {
        assertThat(OtlpGrpc.outcome("200", trailers("0", null), new byte[0])).isEqualTo(Delivery.TAKEN);
        byte[] message = ExportTraceServiceResponse.newBuilder().setPartialSuccess(
                ExportTracePartialSuccess.newBuilder().setRejectedSpans(1)).build().toByteArray();
        byte[] framed = concat(new byte[] {0, 0, 0, 0, (byte) message.length}, message);
        assertThat(OtlpGrpc.outcome("200", trailers("0", null), framed).rejected()).isEqualTo(1);

        Delivery unavailable = OtlpGrpc.outcome("200", trailers("14", "collector%20is%20full"), new byte[0]);
        assertThat(unavailable.retry()).isTrue();
        assertThat(unavailable.why()).isEqualTo("grpc-status 14 UNAVAILABLE: collector is full");
        for (String retried : new String[] {"1", "4", "8", "10", "11", "15"}) {
            assertThat(OtlpGrpc.outcome("200", trailers(retried, null), new byte[0]).retry()).as(retried).isTrue();
        }
        for (String refused : new String[] {"2", "3", "7", "12", "16", "99"}) {
            Delivery d = OtlpGrpc.outcome("200", trailers(refused, null), new byte[0]);
            assertThat(d.taken() || d.retry()).as(refused).isFalse();
        }
        assertThat(OtlpGrpc.outcome("200", new DefaultHttp2Headers(), new byte[0]).why())
                .isEqualTo("the collector's answer has no gRPC status");
        // A proxy in front of the collector answering in HTTP: gRPC's HTTP-to-status table.
        assertThat(OtlpGrpc.outcome("503", new DefaultHttp2Headers(), new byte[0]).retry()).isTrue();
        assertThat(OtlpGrpc.outcome("404", new DefaultHttp2Headers(), new byte[0]).retry()).isFalse();
    }

    private static DefaultHttp2Headers trailers(String status, String message) {
        DefaultHttp2Headers h = new DefaultHttp2Headers();
        h.set("grpc-status", status);
        if (message != null) {
            h.set("grpc-message", message);
        }
        return h;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
