package dev.strait.operator.status;

import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import dev.strait.operator.translate.StatusCondition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Which Kubernetes Events a resource's reports call for: only changes, never the same problem twice in a row
 * (ADR 0056). A problem is a condition that says the operator refuses the resource or cannot program all of
 * it: {@code Accepted=False} (Invalid, Conflicted, RejectedByProxy), {@code Accepted=True} with
 * PartiallyConflicted, and {@code ResolvedRefs=False} (BackendNotFound, InvalidBackend, SecretNotFound,
 * InvalidSecret, UnsupportedAnnotation, InvalidPath). Each problem that is new, or whose reason or message changed, is one
 * Warning with the condition's reason and message (which names the field); a resource whose problems are all
 * gone after this ledger saw one gets one Normal {@value #RESOLVED}. {@code Programmed} (which moves with
 * every proxy's ACK) makes no events.
 *
 * <p>Pure and in memory: a restarted operator (or a new leader) starts empty, so it sees each resource's
 * problems as new; the writer makes that harmless by naming events after their content (see
 * {@code reconcile/EventRecorder}). Thread-safe.
 */
public final class EventLedger {
    public static final String WARNING = "Warning";
    public static final String NORMAL = "Normal";
    /** The reason of the Normal event of a resource whose problems are gone. */
    public static final String RESOLVED = "Resolved";

    /** One event to write about a resource. */
    public record Notice(String type, String reason, String message) {}

    /** What was last seen of a resource: its uid (a new object of the same name starts again) and problems by condition type. */
    private record Seen(String uid, Map<String, Notice> problems) {}

    private final Map<ResourceKey, Seen> seen = new HashMap<>();

    /** The events that {@code report}, the latest of the resource with this uid, calls for (usually none). */
    public synchronized List<Notice> observe(ResourceKey key, String uid, ResourceReport report) {
        Map<String, Notice> now = new LinkedHashMap<>();
        problem(now, report.accepted(), report.accepted().status() && "PartiallyConflicted".equals(report.accepted().reason()));
        problem(now, report.resolvedRefs(), false);
        Seen before = seen.get(key);
        if (before != null && !Objects.equals(before.uid, uid)) {
            before = null;
        }
        List<Notice> out = new ArrayList<>();
        for (Map.Entry<String, Notice> e : now.entrySet()) {
            if (before == null || !e.getValue().equals(before.problems.get(e.getKey()))) {
                out.add(e.getValue());
            }
        }
        if (now.isEmpty() && before != null && !before.problems.isEmpty()) {
            out.add(new Notice(NORMAL, RESOLVED, resolved(report)));
        }
        seen.put(key, new Seen(uid, Map.copyOf(now)));
        return out;
    }

    private static void problem(Map<String, Notice> out, StatusCondition c, boolean despiteTrue) {
        if (c != null && (!c.status() || despiteTrue)) {
            out.put(c.type(), new Notice(WARNING, c.reason(), Objects.requireNonNullElse(c.message(), "")));
        }
    }

    private static String resolved(ResourceReport r) {
        return r.key().kind().equals("Upstream") ? "accepted, its Service found: the problems reported before are gone"
                : "accepted, every reference resolved: the problems reported before are gone";
    }

    /** Forgets resources that no longer exist. */
    public synchronized void retain(Predicate<ResourceKey> exists) {
        seen.keySet().removeIf(k -> !exists.test(k));
    }

    /** Resources remembered. */
    public synchronized int size() {
        return seen.size();
    }
}
