package dev.strait.operator.status;

import dev.strait.operator.crd.ResourceStatus;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;

/** Merges a desired status into the current one: transition times move only when a condition's status does. */
public final class StatusMerge {
    private StatusMerge() {}

    /** The status to write, or null when the current one already says the same. */
    public static ResourceStatus merge(ResourceStatus current, ResourceStatus desired, Instant now) {
        if (current != null && sameIgnoringTimes(current, desired)) {
            return null;
        }
        String stamp = now.truncatedTo(ChronoUnit.SECONDS).toString();
        for (Condition d : desired.conditions) {
            Condition old = current == null ? null : find(current.conditions, d.getType());
            d.setLastTransitionTime(old != null && Objects.equals(old.getStatus(), d.getStatus())
                    && old.getLastTransitionTime() != null ? old.getLastTransitionTime() : stamp);
        }
        return desired;
    }

    static boolean sameIgnoringTimes(ResourceStatus a, ResourceStatus b) {
        if (!Objects.equals(a.observedGeneration, b.observedGeneration)
                || !Objects.equals(a.programmedVersion, b.programmedVersion)
                || !sameProxies(a.proxies, b.proxies)
                || a.conditions == null || b.conditions == null
                || a.conditions.size() != b.conditions.size()) {
            return false;
        }
        for (Condition x : b.conditions) {
            Condition y = find(a.conditions, x.getType());
            if (y == null || !Objects.equals(x.getStatus(), y.getStatus()) || !Objects.equals(x.getReason(), y.getReason())
                    || !Objects.equals(x.getMessage(), y.getMessage())
                    || !Objects.equals(x.getObservedGeneration(), y.getObservedGeneration())) {
                return false;
            }
        }
        return true;
    }

    /** Differs in more than proxy counts and the Programmed message that reports them. */
    static boolean significantlyDifferent(ResourceStatus a, ResourceStatus b) {
        if (!Objects.equals(a.observedGeneration, b.observedGeneration)
                || !Objects.equals(a.programmedVersion, b.programmedVersion)
                || a.conditions == null || b.conditions == null || a.conditions.size() != b.conditions.size()) {
            return true;
        }
        for (Condition x : b.conditions) {
            Condition y = find(a.conditions, x.getType());
            if (y == null || !Objects.equals(x.getStatus(), y.getStatus()) || !Objects.equals(x.getReason(), y.getReason())
                    || !x.getType().equals("Programmed") && !Objects.equals(x.getMessage(), y.getMessage())) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameProxies(ResourceStatus.Proxies a, ResourceStatus.Proxies b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(a.connected, b.connected) && Objects.equals(a.programmed, b.programmed)
                && Objects.equals(a.rejected, b.rejected);
    }

    private static Condition find(List<Condition> conditions, String type) {
        if (conditions == null) {
            return null;
        }
        for (Condition c : conditions) {
            if (type.equals(c.getType())) {
                return c;
            }
        }
        return null;
    }
}
