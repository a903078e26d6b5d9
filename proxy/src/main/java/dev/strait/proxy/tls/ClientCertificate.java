package dev.strait.proxy.tls;

/**
 * What a connection's client certificate came to (ADR 0075), in the words ingress-nginx sends upstream:
 * {@code verify} is {@code SUCCESS}, {@code FAILED:reason} or {@code NONE} (nginx's {@code $ssl_client_verify});
 * the names are RFC 2253 ({@code $ssl_client_s_dn}, {@code $ssl_client_i_dn}); {@code escapedPem} is the
 * certificate when the policy forwards it, else null. {@code forwardedClientCert} is Envoy's
 * {@code x-forwarded-client-cert} element for a verified certificate (null otherwise): made once per connection.
 */
public record ClientCertificate(String verify, String subjectDn, String issuerDn, String escapedPem,
                                String forwardedClientCert) {
    public static final ClientCertificate NONE = new ClientCertificate("NONE", null, null, null, null);

    public boolean verified() {
        return verify.equals("SUCCESS");
    }

    public boolean sent() {
        return subjectDn != null;
    }
}
