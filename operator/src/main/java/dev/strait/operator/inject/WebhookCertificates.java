package dev.strait.operator.inject;

import dev.strait.operator.publish.tls.CaStore;
import dev.strait.operator.publish.tls.ChannelPki;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook's serving certificate and the trust the API server needs for it. The certificate is
 * signed by the operator's own CA (the control channel's, kept in the Secret {@code strait-control-ca}
 * by {@link CaStore}, so every replica signs with the same one); the CA bundle (current and, during a
 * rotation, previous CA) is written into {@code caBundle} of every webhook of the named
 * MutatingWebhookConfiguration. Checked at start and twice a day, like the channel's certificates.
 */
public final class WebhookCertificates {
    private static final Logger log = LoggerFactory.getLogger(WebhookCertificates.class);

    private final KubernetesClient client;
    private final CaStore store;
    private final String namespace;
    private final List<String> names;
    private final String configuration;
    private final Clock clock;
    private ChannelPki.Issued ca;
    private ChannelPki.Issued serving;

    /**
     * @param names         DNS names of the webhook's Service ({@code SERVICE.NS.svc}, ...)
     * @param configuration the MutatingWebhookConfiguration to keep the caBundle of
     */
    public WebhookCertificates(KubernetesClient client, String namespace, List<String> names, String configuration,
                               Clock clock) {
        this.client = client;
        this.store = new CaStore(client, namespace);
        this.namespace = namespace;
        this.names = List.copyOf(names);
        this.configuration = configuration;
        this.clock = clock;
    }

    /** The serving certificate, remade when the CA changed or 30 of its 90 days are left; the caBundle patched. */
    public synchronized ChannelPki.Issued refresh() throws IOException {
        Instant now = clock.instant();
        ChannelPki.Issued current = store.currentCa(now);
        if (serving == null || ca == null || !ca.certificate().equals(current.certificate())
                || Duration.between(now, serving.notAfter()).compareTo(Duration.ofDays(30)) < 0) {
            serving = ChannelPki.serverCertificate(current, names, now, Duration.ofDays(90));
            ca = current;
            log.info("sidecar webhook: serving certificate for {} until {}", names, serving.notAfter());
        }
        patchCaBundle(client, configuration, bundle(current));
        return serving;
    }

    /** What the API server must trust: the published bundle (current and previous CA), else the current CA. */
    private String bundle(ChannelPki.Issued current) {
        ConfigMap cm = client.configMaps().inNamespace(namespace).withName(CaStore.NAME).get();
        String b = cm == null || cm.getData() == null ? null : cm.getData().get("ca.crt");
        return b == null || b.isBlank() ? current.certificatePem() : b;
    }

    /** Sets {@code caBundle} on every webhook of the configuration; false when it does not exist (yet). */
    public static boolean patchCaBundle(KubernetesClient client, String configuration, String pemBundle) {
        String encoded = Base64.getEncoder().encodeToString(pemBundle.getBytes(StandardCharsets.UTF_8));
        MutatingWebhookConfiguration mwc = client.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(configuration).get();
        if (mwc == null) {
            log.warn("MutatingWebhookConfiguration {} not found: the API server will not call the sidecar webhook",
                    configuration);
            return false;
        }
        boolean stale = false;
        for (MutatingWebhook w : mwc.getWebhooks()) {
            stale |= !Objects.equals(w.getClientConfig().getCaBundle(), encoded);
        }
        if (stale) {
            client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(configuration)
                    .edit(m -> {
                        m.getWebhooks().forEach(w -> w.getClientConfig().setCaBundle(encoded));
                        return m;
                    });
            log.info("caBundle of MutatingWebhookConfiguration {} updated", configuration);
        }
        return true;
    }
}
