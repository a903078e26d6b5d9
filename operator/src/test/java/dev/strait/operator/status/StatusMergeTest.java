package dev.strait.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.operator.crd.ResourceStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Which status differences are written, and what happens to transition times. */
class StatusMergeTest {
    private static ResourceStatus status(String programmed, String reason, String message, int connected) {
        ResourceStatus s = new ResourceStatus();
        s.observedGeneration = 2L;
        s.programmedVersion = "abc";
        s.conditions.add(c("Accepted", "True", "Accepted", "valid"));
        s.conditions.add(c("Programmed", programmed, reason, message));
        s.proxies = new ResourceStatus.Proxies(connected, connected, 0);
        return s;
    }

    private static Condition c(String type, String status, String reason, String message) {
        return new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withObservedGeneration(2L).build();
    }

    @Test
    void countsAloneAreNotSignificantButConditionsAre() {
        ResourceStatus a = status("True", "Programmed", "1/1 proxies", 1);
        assertThat(StatusMerge.significantlyDifferent(a, status("True", "Programmed", "2/2 proxies", 2))).isFalse();
        assertThat(StatusMerge.sameIgnoringTimes(a, status("True", "Programmed", "2/2 proxies", 2))).isFalse();
        assertThat(StatusMerge.significantlyDifferent(a, status("False", "Pending", "1/2 proxies", 2))).isTrue();
    }

    @Test
    void transitionTimesMoveOnlyWithTheConditionsStatus() {
        Instant t1 = Instant.parse("2026-11-30T10:00:00Z");
        ResourceStatus written = StatusMerge.merge(null, status("True", "Programmed", "1/1", 1), t1);
        assertThat(StatusMerge.merge(written, status("True", "Programmed", "1/1", 1), t1.plusSeconds(5)))
                .as("nothing to write").isNull();
        ResourceStatus next = StatusMerge.merge(written, status("False", "Pending", "1/2", 2), t1.plusSeconds(9));
        assertThat(next.conditions.get(0).getLastTransitionTime()).isEqualTo("2026-11-30T10:00:00Z");
        assertThat(next.conditions.get(1).getLastTransitionTime()).isEqualTo("2026-11-30T10:00:09Z");
    }
}
