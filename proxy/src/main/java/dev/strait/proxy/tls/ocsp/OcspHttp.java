package dev.strait.proxy.tls.ocsp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Duration;

/**
 * Asking an OCSP responder (RFC 6960 A.1): one POST of a request, its answer read up to a size no genuine answer
 * reaches. Blocking: called on the stapler's and the client checker's own threads, never on an event loop.
 */
final class OcspHttp {
    private static final int MAX_ANSWER_BYTES = 64 * 1024;

    private OcspHttp() {}

    /** POSTs {@code request} to {@code responder}, waiting at most {@code timeout} to connect and as much for its answer. */
    static byte[] post(URI responder, byte[] request, Duration timeout) throws IOException {
        HttpURLConnection c = (HttpURLConnection) responder.toURL().openConnection();
        try {
            int millis = (int) timeout.toMillis();
            c.setConnectTimeout(millis);
            c.setReadTimeout(millis);
            c.setUseCaches(false);
            c.setDoOutput(true);
            c.setRequestMethod("POST");
            c.setRequestProperty("Content-Type", "application/ocsp-request");
            c.setRequestProperty("Accept", "application/ocsp-response");
            c.setFixedLengthStreamingMode(request.length);
            try (OutputStream out = c.getOutputStream()) {
                out.write(request);
            }
            int code = c.getResponseCode();
            if (code != 200) {
                throw new IOException("HTTP " + code);
            }
            try (InputStream in = c.getInputStream()) {
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                byte[] buf = new byte[8192];
                for (int n; (n = in.read(buf)) > 0; ) {
                    body.write(buf, 0, n);
                    if (body.size() > MAX_ANSWER_BYTES) {
                        throw new IOException("an answer over " + MAX_ANSWER_BYTES + " bytes");
                    }
                }
                return body.toByteArray();
            }
        } finally {
            c.disconnect();
        }
    }
}
