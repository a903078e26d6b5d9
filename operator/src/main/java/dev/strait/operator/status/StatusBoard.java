package dev.strait.operator.status;

import dev.strait.operator.crd.ResourceStatus;
import dev.strait.operator.publish.Fleet;
import dev.strait.operator.publish.ProxyState;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import dev.strait.operator.translate.Scope;
import dev.strait.operator.translate.StatusCondition;
import dev.strait.operator.translate.Translation;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The status every Route and Upstream should have now. Told of each translation ({@link #update}) and
 * recomputed after it and whenever a proxy joins, leaves, ACKs or NACKs ({@link #refresh}, debounced by
 * the caller); every resource whose desired status changed is passed to the {@code poke} callback, which
 * makes its reconciler run.
 *
 * <p>"Programmed by a proxy" is a comparison of places in the scope's publication order: when a
 * resource's contribution changes, it records the place of the version that first carries the change,
 * and a proxy that ACKed that version or a later one has programmed it. So changes to other Routes do
 * not flip a Route's status back and forth.
 */
public final class StatusBoard {
    /** Kubernetes refuses condition messages over 32 KiB. */
    static final int MAX_MESSAGE = 32 * 1024 - 64;

    private final Fleet fleet;
    private volatile Consumer<ResourceKey> poke = k -> { };
    private Translation translation;
    private final Map<ResourceKey, Since> since = new HashMap<>();
    private final Map<ResourceKey, ResourceStatus> notified = new HashMap<>();
    /** How often proxy counts alone justify a status write (see {@link #refresh}). */
    static final long COUNTS_EVERY_NANOS = 60_000_000_000L;
    private long countsWritten = System.nanoTime();

    /**
     * When a resource's contribution last changed: its fingerprint and the version places per scope; and
     * the report it was last seen with. A report is immutable and a translation reuses a source's whole
     * result (report and content hash together) when nothing it depends on changed (ADR 0025), so the
     * same report instance again means the same fingerprint, without computing it.
     */
    private record Since(Fingerprint fingerprint, Map<Scope, Long> seq, String version, ResourceReport report) {}

    /** What a resource contributes, compared as a value: generation, scopes (a set) and content hash. */
    private record Fingerprint(long generation, Set<Scope> scopes, int content) {}

    public StatusBoard(Fleet fleet) {
        this.fleet = fleet;
    }

    public void onChange(Consumer<ResourceKey> poke) {
        this.poke = poke;
    }

    /**
     * Takes a new translation (already published to the fleet). Only notes which resources changed (and
     * from which version on they count as programmed); the caller schedules the {@link #refresh} that
     * computes and pokes, off the path that publishes, since at 10k resources it costs as much CPU as
     * the proxies spend taking the change in.
     */
    public void update(Translation t) {
        synchronized (this) {
            translation = t;
            for (ResourceReport r : t.allReports()) {
                Since old = since.get(r.key());
                if (old != null && old.report == r) {
                    continue;
                }
                Fingerprint fp = new Fingerprint(r.generation(), r.scopes(), t.content(r.key()));
                if (old != null && old.fingerprint.equals(fp)) {
                    since.put(r.key(), new Since(old.fingerprint, old.seq, old.version, r));
                } else {
                    Map<Scope, Long> seq = new HashMap<>();
                    String version = null;
                    for (Scope s : new TreeSet<>(r.scopes())) {
                        seq.put(s, fleet.currentSeq(s));
                        if (version == null) {
                            version = t.snapshot(s).version();
                        }
                    }
                    since.put(r.key(), new Since(fp, seq, version, r));
                }
            }
            // Every report now has an entry; more entries than reports means some resources are gone (then
            // only: a scan of 10k keys per publication is not free). Notified keys are a subset of these.
            if (since.size() > t.allReports().size()) {
                since.keySet().removeIf(k -> t.report(k) == null);
                notified.keySet().removeIf(k -> t.report(k) == null);
            }
        }
    }

    /**
     * Recomputes every desired status (after ACKs and NACKs) and pokes those that changed. A change of
     * generation, programmed version, or of a condition's status, reason or (for Accepted and
     * ResolvedRefs) message is written at once; a change of proxy counts alone (a proxy joined, left or
     * ACKed without changing whether the resource is programmed) waits for the next minute's pass, since
     * it would otherwise rewrite every resource of the scope for each proxy.
     */
    public void refresh() {
        List<ResourceKey> changed = new ArrayList<>();
        synchronized (this) {
            if (translation == null) {
                return;
            }
            boolean countsDue = System.nanoTime() - countsWritten >= COUNTS_EVERY_NANOS;
            if (countsDue) {
                countsWritten = System.nanoTime();
            }
            Map<Scope, Acks> acks = acks();
            for (ResourceReport r : translation.allReports()) {
                ResourceStatus desired = compute(r, acks);
                ResourceStatus old = notified.get(r.key());
                boolean differs = old == null || !StatusMerge.sameIgnoringTimes(old, desired);
                if (differs && (countsDue || old == null || StatusMerge.significantlyDifferent(old, desired))) {
                    notified.put(r.key(), desired);
                    changed.add(r.key());
                }
            }
        }
        Consumer<ResourceKey> p = poke;
        changed.forEach(p);
    }

    /**
     * The status a resource at {@code generation} should have, without transition times; null when the
     * latest translation has not seen that generation yet (a rebuild is coming and will poke it).
     */
    public synchronized ResourceStatus desired(ResourceKey key, long generation) {
        if (translation == null) {
            return null;
        }
        ResourceReport r = translation.report(key);
        if (r == null || r.generation() != generation) {
            return null;
        }
        return compute(r, acks());
    }

    /** What the latest translation made of a resource; null before the first or when it has no report. */
    public synchronized ResourceReport report(ResourceKey key) {
        return translation == null ? null : translation.report(key);
    }

    /** The proxies of each scope, their ACKed places sorted, for counting with a binary search. */
    private record Acks(long[] sortedSeq, int rejected, String firstRejection) {}

    /** The proxies of the other operator replicas (FleetReport), counted with this one's own. */
    private volatile List<ProxyState> others = List.of();

    /** Replaces what the other replicas reported; returns whether it changed. */
    public boolean others(List<ProxyState> states) {
        boolean changed = !states.equals(others);
        others = List.copyOf(states);
        return changed;
    }

    /** How many proxies of other replicas are counted here. */
    public int otherProxies() {
        return others.size();
    }

    private Map<Scope, Acks> acks() {
        Map<Scope, List<ProxyState>> byScope = new HashMap<>();
        List<ProxyState> all = new ArrayList<>(fleet.proxies());
        all.addAll(others);
        for (ProxyState p : all) {
            byScope.computeIfAbsent(p.scope(), s -> new ArrayList<>()).add(p);
        }
        Map<Scope, Acks> out = new HashMap<>();
        byScope.forEach((scope, ps) -> {
            long[] seq = new long[ps.size()];
            int rejected = 0;
            String first = null;
            for (int i = 0; i < ps.size(); i++) {
                seq[i] = ps.get(i).ackedSeq();
                if (ps.get(i).nacked() != null) {
                    rejected++;
                    if (first == null) {
                        ProxyState p = ps.get(i);
                        first = "version " + p.nacked() + " (" + (p.identity() == null ? "a proxy of " + p.remote()
                                : "proxy " + p.identity() + " at " + p.remote()) + "): " + p.nackError();
                    }
                }
            }
            Arrays.sort(seq);
            out.put(scope, new Acks(seq, rejected, first));
        });
        return out;
    }

    private ResourceStatus compute(ResourceReport r, Map<Scope, Acks> acks) {
        ResourceStatus s = new ResourceStatus();
        s.observedGeneration = r.generation();
        s.conditions.add(condition(r.accepted(), r.generation()));
        s.conditions.add(condition(r.resolvedRefs(), r.generation()));
        s.conditions.add(condition(programmed(r, acks, s), r.generation()));
        return s;
    }

    private StatusCondition programmed(ResourceReport r, Map<Scope, Acks> acks, ResourceStatus s) {
        String type = StatusCondition.PROGRAMMED;
        if (!r.inSnapshot()) {
            if (!r.accepted().status()) {
                return StatusCondition.no(type, r.accepted().reason(), "not in any snapshot: the spec is not accepted");
            }
            if (!r.resolvedRefs().status() && !r.key().kind().equals("Upstream")) {
                return StatusCondition.no(type, "UnresolvedRefs", "not in any snapshot: a reference is not resolved");
            }
            return StatusCondition.no(type, "NotReferenced", "no programmed Route uses this Upstream");
        }
        Since since = this.since.get(r.key());
        int connected = 0;
        int programmed = 0;
        int rejected = 0;
        String rejection = null;
        for (Scope scope : r.scopes()) {
            Acks a = acks.get(scope);
            if (a == null) {
                continue;
            }
            long from = since == null ? Long.MAX_VALUE : since.seq.getOrDefault(scope, Long.MAX_VALUE);
            connected += a.sortedSeq.length;
            programmed += a.sortedSeq.length - lowerBound(a.sortedSeq, from);
            rejected += a.rejected;
            if (rejection == null) {
                rejection = a.firstRejection;
            }
        }
        s.programmedVersion = since == null ? null : since.version;
        s.proxies = new ResourceStatus.Proxies(connected, programmed, rejected);
        String scopes = String.join(", ", r.scopes().stream().sorted().map(Scope::toString).toList());
        if (connected == 0) {
            return StatusCondition.no(type, "NoProxies", "no proxy of " + scopes + " is connected");
        }
        String counts = programmed + "/" + connected + " proxies serve version " + s.programmedVersion + " or later";
        if (programmed == connected) {
            return StatusCondition.yes(type, "Programmed", counts);
        }
        if (rejected > 0) {
            return StatusCondition.no(type, "Rejected", counts + "; " + rejected + " refused " + rejection);
        }
        return StatusCondition.no(type, "Pending", counts);
    }

    private static int lowerBound(long[] sorted, long key) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static Condition condition(StatusCondition c, long generation) {
        Condition k = new Condition();
        k.setType(c.type());
        k.setStatus(c.status() ? "True" : "False");
        k.setReason(c.reason());
        String m = Objects.requireNonNullElse(c.message(), "");
        k.setMessage(m.length() > MAX_MESSAGE ? m.substring(0, MAX_MESSAGE) + " ..." : m);
        k.setObservedGeneration(generation);
        return k;
    }
}
