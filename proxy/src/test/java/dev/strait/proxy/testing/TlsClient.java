package dev.strait.proxy.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/** One HTTP/1.1 connection over TLS with a chosen SNI name (or none), for tests that look at the certificate. */
public final class TlsClient implements AutoCloseable {
    private final SSLSocket socket;
    private final InputStream in;
    private final OutputStream out;

    public record Response(int status, Map<String, String> headers, String body) {}

    public TlsClient(SSLContext context, InetSocketAddress address, String serverName, String... alpn) throws IOException {
        socket = (SSLSocket) context.getSocketFactory().createSocket(address.getAddress(), address.getPort());
        socket.setSoTimeout(5000);
        SSLParameters p = socket.getSSLParameters();
        if (serverName != null) {
            p.setServerNames(List.of(new SNIHostName(serverName)));
        }
        if (alpn.length > 0) {
            p.setApplicationProtocols(alpn);
        }
        socket.setSSLParameters(p);
        socket.startHandshake();
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    public X509Certificate peer() throws IOException {
        return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }

    public String peerCn() throws IOException {
        return peer().getSubjectX500Principal().getName().replaceFirst("^CN=", "");
    }

    /** The OCSP answers the server stapled to the handshake (the JDK asks for them: status_request). */
    public List<byte[]> statusResponses() {
        return ((javax.net.ssl.ExtendedSSLSession) socket.getSession()).getStatusResponses();
    }

    public String protocol() {
        return socket.getApplicationProtocol();
    }

    public String tlsVersion() {
        return socket.getSession().getProtocol();
    }

    public Response get(String path, String host) throws IOException {
        return rawRequest("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
    }

    /** Sends a request as given (head, and body if any) and reads the response. */
    public Response rawRequest(String request) throws IOException {
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        String status = line();
        if (status == null) {
            throw new IOException("connection closed");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String l = line(); l != null && !l.isEmpty(); l = line()) {
            int c = l.indexOf(':');
            headers.put(l.substring(0, c).trim().toLowerCase(Locale.ROOT), l.substring(c + 1).trim());
        }
        int len = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(len);
        return new Response(Integer.parseInt(status.split(" ")[1]), headers, new String(body, StandardCharsets.UTF_8));
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
