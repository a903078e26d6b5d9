package dev.strait.operator.publish.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The channel CA lives in a Secret, is shared by restarts, and is rotated before it expires. */
@EnableKubernetesMockClient(crud = true)
class CaStoreTest {
    static KubernetesClient client;

    @Test
    void theCaIsMadeOnceKeptAndRotatedWhenAThirdOfItsLifeIsLeft() throws Exception {
        CaStore store = new CaStore(client, "strait-system");
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        ChannelPki.Issued first = store.currentCa(t0);
        assertThat(store.currentCa(t0.plus(Duration.ofDays(200))).certificate()).as("kept across restarts")
                .isEqualTo(first.certificate());
        ConfigMap bundle = client.configMaps().inNamespace("strait-system").withName(CaStore.NAME).get();
        assertThat(bundle.getData().get("ca.crt")).isEqualTo(first.certificatePem());

        ChannelPki.Issued second = store.currentCa(t0.plus(Duration.ofDays(250)));
        assertThat(second.certificate()).as("rotated with 115 days left").isNotEqualTo(first.certificate());
        bundle = client.configMaps().inNamespace("strait-system").withName(CaStore.NAME).get();
        assertThat(bundle.getData().get("ca.crt")).as("old CA still trusted until it expires")
                .isEqualTo(second.certificatePem() + first.certificatePem());
    }

    @Test
    void theServingCertificateIsRemadeWhenTheCaRotates() throws Exception {
        CaStore store = new CaStore(client, "other");
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        ChannelCertificates certs = new ChannelCertificates(store, List.of("localhost"), clock).refresh();
        var firstContext = certs.get();
        certs.refresh();
        assertThat(certs.get()).as("nothing to do").isSameAs(firstContext);
        clock.now = clock.now.plus(Duration.ofDays(70));
        certs.refresh();
        assertThat(certs.get()).as("serving certificate near its end").isNotSameAs(firstContext);
    }

    private static final class MutableClock extends Clock {
        Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
