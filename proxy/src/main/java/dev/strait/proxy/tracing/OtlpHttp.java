package dev.strait.proxy.tracing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.proxy.tls.CollectorTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.Map;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

/**
 * OTLP over HTTP/1.1: one POST per batch with the JDK's client, which keeps the connection for the next. A 2xx
 * answer is taken (its body may say some spans were rejected); 429, 502, 503 and 504 are worth another try, as
 * OTLP/HTTP's specification lists them.
 */
final class OtlpHttp {
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private OtlpHttp() {}

    /**
     * @param body as {@code options} say (compressed or not)
     * @param tls  for an {@code https} endpoint; null: the JDK's own trust
     */
    static Delivery post(String endpoint, OtlpProtocol protocol, byte[] body, OtlpOptions options,
                         Map<String, String> configured, Map<String, String> environment, CollectorTls tls)
            throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(endpoint).toURL().openConnection();
        SSLSocketFactory factory = tls == null ? null : tls.socketFactory();
        if (factory != null && c instanceof HttpsURLConnection https) {
            https.setSSLSocketFactory(factory);
        }
        c.setConnectTimeout(CONNECT_TIMEOUT_MILLIS);
        c.setReadTimeout((int) options.timeoutMillis());
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setInstanceFollowRedirects(false);
        c.setFixedLengthStreamingMode(body.length);
        c.setRequestProperty("Content-Type", protocol.contentType);
        if (options.gzip()) {
            c.setRequestProperty("Content-Encoding", "gzip");
        }
        configured.forEach(c::setRequestProperty);
        environment.forEach(c::setRequestProperty); // set after: the environment's value wins
        try (OutputStream out = c.getOutputStream()) {
            out.write(body);
        }
        int status = c.getResponseCode();
        // Read the answer to its end so the connection can be reused.
        byte[] answer;
        try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
            answer = in == null ? new byte[0] : in.readAllBytes();
        }
        if (status >= 200 && status < 300) {
            return protocol == OtlpProtocol.JSON ? partialSuccess(answer) : OtlpProtobuf.partialSuccess(answer);
        }
        String why = "the collector answered " + status;
        return status == 429 || status == 502 || status == 503 || status == 504 ? Delivery.retry(why) : Delivery.refused(why);
    }

    /** OTLP's JSON {@code {"partialSuccess": {"rejectedSpans": "3", "errorMessage": "..."}}}. */
    static Delivery partialSuccess(byte[] answer) {
        if (answer.length == 0) {
            return Delivery.TAKEN;
        }
        try {
            JsonNode ps = Json.MAPPER.readTree(answer).path("partialSuccess");
            return Delivery.partly(ps.path("rejectedSpans").asLong(0), ps.path("errorMessage").asText(null));
        } catch (IOException e) {
            return Delivery.TAKEN; // taken all the same; what was dropped is unknown
        }
    }

    /** Made when a JSON answer is first read: a proxy sending protobuf loads no mapper. */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }
}
