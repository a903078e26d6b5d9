package dev.strait.proxy.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cert.ocsp.BasicOCSPRespBuilder;
import org.bouncycastle.cert.ocsp.CertificateStatus;
import org.bouncycastle.cert.ocsp.OCSPReq;
import org.bouncycastle.cert.ocsp.OCSPResp;
import org.bouncycastle.cert.ocsp.OCSPRespBuilder;
import org.bouncycastle.cert.ocsp.Req;
import org.bouncycastle.cert.ocsp.RespID;
import org.bouncycastle.cert.ocsp.RevokedStatus;
import org.bouncycastle.cert.ocsp.UnknownStatus;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * An OCSP responder of a {@link TestCertificates} CA on a real socket (127.0.0.1, port 0), made with BouncyCastle:
 * it answers every request as {@link #answer} says, for whatever certificate the request names, so tests see what
 * the proxy asked and what it was told.
 */
public final class TestOcspResponder implements AutoCloseable {
    /** What the next requests get. */
    public enum Answer {
        /** "good", signed by the CA. */
        GOOD,
        /** "revoked" (key compromise, an hour ago), signed by the CA. */
        REVOKED,
        /** "unknown", signed by the CA. */
        UNKNOWN,
        /** "good", signed by a key the CA never certified. */
        WRONG_SIGNER,
        /** "good", signed by a responder the CA certified for OCSP signing, its certificate in the answer. */
        DELEGATED,
        /** "good", signed by a certificate of the CA that may not sign OCSP answers. */
        DELEGATED_WITHOUT_EKU,
        /** "good", but its nextUpdate passed an hour ago. */
        EXPIRED,
        /** the status {@code tryLater}, no answer. */
        TRY_LATER,
        /** HTTP 500. */
        HTTP_500,
        /** 200 with bytes that are no OCSP answer. */
        GARBAGE
    }

    private final TestCertificates ca;
    private final HttpServer server;
    private final TestCertificates.Issued delegate;
    private final TestCertificates.Issued notSigning;
    public volatile Answer answer = Answer.GOOD;
    /** How long a good answer says it holds (thisUpdate to nextUpdate); null: no nextUpdate. */
    public volatile Duration validity = Duration.ofDays(1);
    public final AtomicInteger requests = new AtomicInteger();
    public volatile byte[] lastRequest;
    /** How long each answer is held back, to see what waits for it. */
    public volatile Duration delay = Duration.ZERO;
    public volatile byte[] lastAnswer;

    public TestOcspResponder(TestCertificates ca) throws Exception {
        this.ca = ca;
        this.delegate = ca.ocspResponderCertificate(true);
        this.notSigning = ca.ocspResponderCertificate(false);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                lastRequest = body;
                requests.incrementAndGet();
                Answer a = answer;
                if (!delay.isZero()) {
                    try {
                        Thread.sleep(delay.toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                if (a == Answer.HTTP_500) {
                    exchange.sendResponseHeaders(500, -1);
                    return;
                }
                byte[] out;
                try {
                    out = a == Answer.GARBAGE ? "<html>not here</html>".getBytes() : answer(new OCSPReq(body), a);
                } catch (Exception e) {
                    exchange.sendResponseHeaders(400, -1);
                    return;
                }
                lastAnswer = out;
                exchange.getResponseHeaders().add("Content-Type", "application/ocsp-response");
                exchange.sendResponseHeaders(200, out.length);
                try (OutputStream o = exchange.getResponseBody()) {
                    o.write(out);
                }
            } catch (IOException e) {
                // the client went away
            }
        });
        server.start();
    }

    /** The responder's URL, for a certificate's Authority Information Access. */
    public String uri() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/ocsp";
    }

    /** An answer about {@code cert} (issued by this CA) as {@code a} says, DER: what {@code openssl ocsp -respout} writes. */
    public byte[] answerFor(java.security.cert.X509Certificate cert, Answer a) throws Exception {
        org.bouncycastle.cert.ocsp.CertificateID id = new org.bouncycastle.cert.ocsp.CertificateID(
                new org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder().build()
                        .get(org.bouncycastle.cert.ocsp.CertificateID.HASH_SHA1),
                new JcaX509CertificateHolder(ca.ca()), cert.getSerialNumber());
        return answer(new org.bouncycastle.cert.ocsp.OCSPReqBuilder().addRequest(id).build(), a);
    }

    /** An answer to {@code request} as {@code a} says, DER. */
    public byte[] answer(OCSPReq request, Answer a) throws Exception {
        if (a == Answer.TRY_LATER) {
            return new OCSPRespBuilder().build(OCSPRespBuilder.TRY_LATER, null).getEncoded();
        }
        KeyPair signer = ca.caKeys();
        X509CertificateHolder[] chain = null;
        X500Name responder = new X500Name(ca.ca().getSubjectX500Principal().getName());
        if (a == Answer.WRONG_SIGNER) {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            signer = g.generateKeyPair();
        } else if (a == Answer.DELEGATED || a == Answer.DELEGATED_WITHOUT_EKU) {
            TestCertificates.Issued d = a == Answer.DELEGATED ? delegate : notSigning;
            signer = new KeyPair(d.certificate().getPublicKey(), d.key());
            chain = new X509CertificateHolder[] {new JcaX509CertificateHolder(d.certificate())};
            responder = new X500Name(d.certificate().getSubjectX500Principal().getName());
        }
        Instant now = Instant.now();
        Instant thisUpdate = now.minus(Duration.ofMinutes(1));
        Duration v = validity;
        // Expired by more than the 15 minutes of clock skew the JDK's checks allow.
        Instant nextUpdate = a == Answer.EXPIRED ? now.minus(Duration.ofHours(1)) : v == null ? null : thisUpdate.plus(v);
        if (a == Answer.EXPIRED) {
            thisUpdate = now.minus(Duration.ofHours(3));
        }
        BasicOCSPRespBuilder b = new BasicOCSPRespBuilder(new RespID(responder));
        for (Req r : request.getRequestList()) {
            CertificateStatus status = switch (a) {
                case REVOKED -> new RevokedStatus(Date.from(now.minus(Duration.ofHours(1))),
                        org.bouncycastle.asn1.x509.CRLReason.keyCompromise);
                case UNKNOWN -> new UnknownStatus();
                default -> CertificateStatus.GOOD;
            };
            b.addResponse(r.getCertID(), status, Date.from(thisUpdate), nextUpdate == null ? null : Date.from(nextUpdate),
                    null);
        }
        String algorithm = "SHA256withECDSA";
        OCSPResp resp = new OCSPRespBuilder().build(OCSPRespBuilder.SUCCESSFUL,
                b.build(new JcaContentSignerBuilder(algorithm).build(signer.getPrivate()), chain, Date.from(now)));
        return resp.getEncoded();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
