package dev.strait.operator.publish.tls;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the channel CA in a Secret ({@code strait-control-ca}: {@code ca.crt}, {@code ca.key}) so every
 * replica and every restart uses the same one, and publishes what proxies must trust in a ConfigMap of
 * the same name ({@code ca.crt}, to mount and point {@code STRAIT_CONTROL_CA} at). When less than a third
 * of the CA's life is left a new one is made; the bundle then holds the new and the old CA until the old
 * one expires, so proxies that have not yet re-read the bundle still accept the operator.
 */
public final class CaStore {
    private static final Logger log = LoggerFactory.getLogger(CaStore.class);
    public static final String NAME = "strait-control-ca";
    static final Duration CA_LIFE = Duration.ofDays(365);

    private final KubernetesClient client;
    private final String namespace;

    public CaStore(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** The CA to sign with now, made or rotated as needed, with the trust bundle published. */
    public ChannelPki.Issued currentCa(Instant now) throws IOException {
        return currentCa(now, true);
    }

    /**
     * Replicas start together (the chart runs two): the Secret is created, or rotated with the version
     * that was read, so that of two replicas making a CA at the same moment one wins and the other
     * (told 409 Conflict) reads and uses the winner's, rather than each overwriting the other's and
     * serving certificates signed by a CA that is no longer published.
     */
    private ChannelPki.Issued currentCa(Instant now, boolean mayRetry) throws IOException {
        Secret s = client.secrets().inNamespace(namespace).withName(NAME).get();
        ChannelPki.Issued ca = null;
        String previous = null;
        if (s != null && s.getData() != null && s.getData().containsKey("ca.crt") && s.getData().containsKey("ca.key")) {
            ca = ChannelPki.read(decode(s.getData().get("ca.crt")), decode(s.getData().get("ca.key")));
            Duration left = Duration.between(now, ca.notAfter());
            if (left.compareTo(CA_LIFE.dividedBy(3)) < 0) {
                log.info("channel CA expires {}; making a new one (the old one stays trusted until then)", ca.notAfter());
                previous = left.isNegative() ? null : ca.certificatePem();
                ca = null;
            }
        }
        if (ca == null) {
            ca = ChannelPki.newCa("strait-control-ca", now, CA_LIFE);
            Secret secret = new SecretBuilder().withNewMetadata().withName(NAME).withNamespace(namespace).endMetadata()
                    .withType("Opaque")
                    .withData(Map.of("ca.crt", encode(ca.certificatePem()), "ca.key", encode(ca.keyPem())))
                    .build();
            try {
                if (s == null) {
                    client.resource(secret).create();
                } else {
                    secret.getMetadata().setResourceVersion(s.getMetadata().getResourceVersion());
                    client.resource(secret).update();
                }
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409 && mayRetry) {
                    log.info("another replica made the channel CA at the same moment; using that one");
                    return currentCa(now, false);
                }
                throw e;
            }
            String bundle = ca.certificatePem() + (previous == null ? "" : previous);
            client.resource(new ConfigMapBuilder().withNewMetadata().withName(NAME).withNamespace(namespace).endMetadata()
                    .withData(Map.of("ca.crt", bundle)).build()).createOr(r -> r.update());
        }
        return ca;
    }

    private static String decode(String b64) {
        return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
    }

    private static String encode(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
