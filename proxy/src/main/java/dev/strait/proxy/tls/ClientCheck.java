package dev.strait.proxy.tls;

import dev.strait.model.Config;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;

/**
 * A request's client-certificate check (ADR 0075): {@code refusal} and its {@code reason} when it may not go on,
 * else the {@code certificate} verdict to send upstream ({@code null}: its host asks for none).
 */
public record ClientCheck(HttpResponseStatus refusal, String reason, ClientCertificate certificate, boolean forward,
                          String errorPage) {
    static final ClientCheck NOT_ASKED = new ClientCheck(null, null, null, false, null);
    static final ClientCheck MISDIRECTED = new ClientCheck(HttpResponseStatus.MISDIRECTED_REQUEST,
            "this connection was not set up for this host's client certificates; connect again for it", null, false,
            null);

    private static final AsciiString VERIFY = AsciiString.cached("ssl-client-verify");
    private static final AsciiString SUBJECT = AsciiString.cached("ssl-client-subject-dn");
    private static final AsciiString ISSUER = AsciiString.cached("ssl-client-issuer-dn");
    private static final AsciiString CERT = AsciiString.cached("ssl-client-cert");
    /** Envoy's field, for apps written for Envoy, Istio or Contour. */
    private static final AsciiString XFCC = AsciiString.cached("x-forwarded-client-cert");

    static final ClientCheck CLEARTEXT = new ClientCheck(HttpResponseStatus.FORBIDDEN,
            "this host takes requests over https with a client certificate only", null, false, null);

    /**
     * The check of a request for {@code host} on a connection ({@code tls}: null for cleartext) accepted by
     * {@code listener} under the snapshot's TLS side. A cleartext request for a host some TLS listener asks
     * certificates for is refused unless its rule only sends it to https: no certificate can be shown there, and a
     * route left on every listener by mistake must not open the host without one.
     */
    public static ClientCheck of(TlsConnection tls, ServerTls serverTls, String listener, String host,
                                 dev.strait.proxy.route.CompiledRule rule) {
        if (tls == null) {
            return serverTls.validatesClients(host) && (rule == null || !rule.handler().upgradesToHttps())
                    ? CLEARTEXT : NOT_ASKED;
        }
        return tls.checkClient(host, serverTls.listener(listener));
    }

    static ClientCheck of(ClientValidationPolicy policy, ClientCertificate cert) {
        Config.ClientValidationMode mode = policy.mode();
        // nginx's answers: 400 with "No required SSL certificate was sent" or "The SSL certificate error".
        String page = policy.errorPage();
        if (mode == Config.ClientValidationMode.REQUIRE && !cert.sent()) {
            return new ClientCheck(HttpResponseStatus.BAD_REQUEST, "a client certificate is required", cert, false, page);
        }
        if (mode != Config.ClientValidationMode.OPTIONAL_NO_CA && cert.sent() && !cert.verified()) {
            return new ClientCheck(HttpResponseStatus.BAD_REQUEST, "the client certificate was not accepted: "
                    + cert.verify().substring("FAILED:".length()), cert, false, page);
        }
        if (!policy.subjectAllowed(cert.subjectDn())) {
            return new ClientCheck(HttpResponseStatus.FORBIDDEN, "the client certificate is not allowed here", cert, false,
                    page);
        }
        return new ClientCheck(null, null, cert, policy.forwardCertificate(), null);
    }

    /**
     * Answers a refused request: the policy's error page by a 302 (nginx's {@code error_page 495 496 = URL}, as
     * ingress-nginx's {@code auth-tls-error-page} writes it), else the status with its reason.
     */
    public void answer(dev.strait.proxy.http.Exchange ex) {
        if (errorPage == null) {
            ex.sendError(refusal, reason);
            return;
        }
        HttpHeaders h = new io.netty.handler.codec.http.DefaultHttpHeaders();
        h.set(io.netty.handler.codec.http.HttpHeaderNames.LOCATION, errorPage);
        h.set(io.netty.handler.codec.http.HttpHeaderNames.CACHE_CONTROL, "no-store");
        ex.sendError(HttpResponseStatus.FOUND, h);
    }

    /**
     * Puts the verdict on the request for the upstream, in ingress-nginx's fields, over any the client sent itself
     * (a client must not be able to claim a certificate it did not show).
     */
    public void applyTo(HttpHeaders headers) {
        if (certificate == null) {
            return;
        }
        headers.remove(VERIFY).remove(SUBJECT).remove(ISSUER).remove(CERT).remove(XFCC);
        headers.set(VERIFY, certificate.verify());
        if (certificate.forwardedClientCert() != null) {
            headers.set(XFCC, certificate.forwardedClientCert());
        }
        if (certificate.sent()) {
            headers.set(SUBJECT, certificate.subjectDn()).set(ISSUER, certificate.issuerDn());
            if (forward && certificate.escapedPem() != null) {
                headers.set(CERT, certificate.escapedPem());
            }
        }
    }
}
