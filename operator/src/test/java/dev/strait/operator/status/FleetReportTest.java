package dev.strait.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.operator.publish.ProxyState;
import dev.strait.operator.translate.Scope;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A replica's proxies survive the trip through a report: per scope and version, refusals included. */
class FleetReportTest {
    private static ProxyState proxy(Scope scope, String acked, String nacked, String error) {
        return new ProxyState(1, "r", null, scope, acked, 0, nacked, error);
    }

    @Test
    void countsPerScopeAndVersionComeBackWithThisReplicasPlaces() {
        Scope ingress = Scope.ingress("strait");
        Scope sidecar = Scope.sidecar("strait-sidecar", "shop");
        String json = FleetReport.encode(List.of(
                proxy(ingress, "v2", null, null), proxy(ingress, "v2", null, null), proxy(ingress, "v1", "v3", "bad"),
                proxy(sidecar, null, null, null)));
        Map<String, Long> places = Map.of("v1", 1L, "v2", 2L, "v3", 3L);
        List<ProxyState> back = FleetReport.decode(json, (scope, v) -> places.getOrDefault(v, -1L));
        assertThat(back).hasSize(4);
        assertThat(back).filteredOn(p -> p.scope().equals(ingress)).extracting(ProxyState::ackedSeq)
                .containsExactlyInAnyOrder(1L, 2L, 2L);
        assertThat(back).filteredOn(p -> p.nacked() != null).singleElement()
                .satisfies(p -> assertThat(p.nackError()).isEqualTo("bad")).extracting(ProxyState::acked).isEqualTo("v1");
        assertThat(back).filteredOn(p -> p.scope().equals(sidecar)).singleElement()
                .extracting(ProxyState::ackedSeq).isEqualTo(-1L);
    }

    @Test
    void aBrokenReportCountsNothing() {
        assertThat(FleetReport.decode("{not json", (s, v) -> 0L)).isEmpty();
    }
}
