package dev.strait.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.operator.status.EventLedger.Notice;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import dev.strait.operator.translate.StatusCondition;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Events only on changes of a resource's problems (ADR 0056). */
class EventLedgerTest {
    private static final ResourceKey KEY = new ResourceKey("Ingress", "shop", "site");
    private static final StatusCondition ACCEPTED = StatusCondition.yes(StatusCondition.ACCEPTED, "Accepted", "valid");
    private static final StatusCondition RESOLVED = StatusCondition.yes(StatusCondition.RESOLVED_REFS, "ResolvedRefs", "all");
    private static final StatusCondition UNSUPPORTED = StatusCondition.no(StatusCondition.RESOLVED_REFS,
            "UnsupportedAnnotation", "metadata.annotations[nginx.ingress.kubernetes.io/rewrite-target]: no");
    private static final StatusCondition MISSING = StatusCondition.no(StatusCondition.RESOLVED_REFS,
            "BackendNotFound", "spec.rules[0].http.paths[0].backend.service.name: Service \"web\" not found");
    private static final StatusCondition PARTLY = StatusCondition.yes(StatusCondition.ACCEPTED,
            "PartiallyConflicted", "spec.rules[0].http.paths[0]: ... is already served by Ingress shop/old");

    private static ResourceReport report(StatusCondition accepted, StatusCondition resolved) {
        return new ResourceReport(KEY, 1, accepted, resolved, Set.of(), List.of());
    }

    private static Notice warning(StatusCondition c) {
        return new Notice(EventLedger.WARNING, c.reason(), c.message());
    }

    @Test
    void aProblemIsOneWarningUntilItChanges() {
        EventLedger l = new EventLedger();
        assertThat(l.observe(KEY, "u1", report(ACCEPTED, UNSUPPORTED))).containsExactly(warning(UNSUPPORTED));
        assertThat(l.observe(KEY, "u1", report(ACCEPTED, UNSUPPORTED))).as("nothing changed").isEmpty();
        assertThat(l.observe(KEY, "u1", report(ACCEPTED, MISSING))).as("another reason").containsExactly(warning(MISSING));
        assertThat(l.observe(KEY, "u1", report(PARTLY, MISSING))).as("a conflict besides")
                .containsExactly(warning(PARTLY));
        assertThat(l.observe(KEY, "u1", report(ACCEPTED, MISSING))).as("one of two gone: still a problem").isEmpty();
    }

    @Test
    void aResourceWhoseProblemsAreGoneGetsOneNormalEvent() {
        EventLedger l = new EventLedger();
        assertThat(l.observe(KEY, "u1", report(ACCEPTED, RESOLVED))).as("never a problem").isEmpty();
        l.observe(KEY, "u1", report(ACCEPTED, MISSING));
        assertThat(l.observe(KEY, "u1", report(ACCEPTED, RESOLVED))).singleElement().satisfies(n -> {
            assertThat(n.type()).isEqualTo(EventLedger.NORMAL);
            assertThat(n.reason()).isEqualTo(EventLedger.RESOLVED);
        });
        assertThat(l.observe(KEY, "u1", report(ACCEPTED, RESOLVED))).isEmpty();
        assertThat(l.observe(KEY, "u1", report(ACCEPTED, MISSING))).as("the same problem again").containsExactly(warning(MISSING));
    }

    @Test
    void aRefusedResourceIsAWarningWithTheConditionsReason() {
        EventLedger l = new EventLedger();
        StatusCondition invalid = StatusCondition.no(StatusCondition.ACCEPTED, "Invalid", "spec.rules[0]: needs one action");
        StatusCondition rejected = StatusCondition.no(StatusCondition.ACCEPTED, "RejectedByProxy",
                "spec.rules[0].files.root: directory /srv does not exist (refused by the proxy at /10.0.0.9:4000)");
        assertThat(l.observe(KEY, "u1", report(invalid, RESOLVED))).containsExactly(warning(invalid));
        assertThat(l.observe(KEY, "u1", report(rejected, RESOLVED))).containsExactly(warning(rejected));
    }

    @Test
    void aNewObjectOfTheSameNameStartsAgainAndGoneOnesAreForgotten() {
        EventLedger l = new EventLedger();
        l.observe(KEY, "u1", report(ACCEPTED, MISSING));
        assertThat(l.observe(KEY, "u2", report(ACCEPTED, MISSING))).containsExactly(warning(MISSING));
        assertThat(l.observe(KEY, "u2", report(ACCEPTED, RESOLVED))).hasSize(1);
        l.retain(k -> !k.equals(KEY));
        assertThat(l.size()).isZero();
    }
}
