package dev.strait.operator.publish;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.ConfigDelta;
import dev.strait.operator.translate.ProxyDefaults;
import dev.strait.operator.translate.ProxyRejection;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.Scope;
import dev.strait.operator.translate.Translation;
import dev.strait.operator.translate.Translator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connected proxies and what they were sent and have ACKed, plus the latest translation. Every
 * session's scope gets that translation's snapshot as soon as it is published (or when the session
 * says hello); nothing is sent before the first publication, so a proxy never sees a table built
 * from caches that had not synced. Each scope's versions are numbered in publication order, so "has
 * this proxy programmed that version" is a comparison even though versions are content hashes.
 *
 * <p>A proxy that announced {@code delta} in hello gets its first snapshot whole, then deltas from the
 * version it last ACKed on this connection, when that version's document is still known here and the
 * delta is smaller than the snapshot. While such a proxy has not answered what it was sent, nothing
 * more is sent to it: its answer says which version the next delta is built on, and the latest version
 * follows the answer.
 */
public final class Fleet {
    private static final Logger log = LoggerFactory.getLogger(Fleet.class);
    /** Versions remembered per scope; a proxy ACKing one older than these counts as behind. */
    private static final int HISTORY = 4096;
    /** Snapshot documents kept per scope as bases for deltas: a proxy further behind gets a whole snapshot. */
    private static final int DOCUMENTS = 4;
    /** In {@link #deltas}: no delta from that base (unknown, not expressible, or not smaller). */
    private static final byte[] WHOLE = new byte[0];

    private final ProxyDefaults defaults;
    private final Map<Long, ProxySession> sessions = new LinkedHashMap<>();
    private final Map<Scope, History> history = new HashMap<>();
    private final Map<Scope, byte[]> encoded = new HashMap<>();
    /** The JSON of the last versions sent per scope, by version, oldest first. */
    private final Map<Scope, LinkedHashMap<String, String>> documents = new HashMap<>();
    /** This publication's deltas per scope and base version, made once and shared by every session. */
    private final Map<Scope, Map<String, byte[]>> deltas = new HashMap<>();
    /**
     * The tree of the last document remembered per scope, by version: the base of most deltas, so it is
     * not parsed again from its JSON. Read only (deltas share its nodes).
     */
    private final Map<Scope, Map.Entry<String, ObjectNode>> lastTree = new HashMap<>();
    /** The translation each remembered version came from, per scope: what a NACK's {@code routes[i]} names. */
    private final Map<Scope, LinkedHashMap<String, Translation>> sources = new HashMap<>();
    /** Routes and Ingresses proxies refused, at the generation they refused (ADR 0050). */
    private final Map<ResourceKey, ProxyRejection> rejected = new HashMap<>();
    private final List<Runnable> rejectionListeners = new CopyOnWriteArrayList<>();
    private long snapshotsSent;
    private long deltasSent;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private Translation latest;

    public Fleet(ProxyDefaults defaults) {
        this.defaults = defaults;
    }

    /** Called (off the lock, on whichever thread made the change) when a proxy joins, leaves, ACKs or NACKs. */
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /** Called (off the lock) when a proxy's NACK names a Route or Ingress not refused before: translate again. */
    public void onRejection(Runnable listener) {
        rejectionListeners.add(listener);
    }

    /**
     * The Routes and Ingresses proxies refused and at which generation: a translation leaves each out while
     * it keeps that generation (ADR 0050). Kept until the resource changes or goes away.
     */
    public synchronized Map<ResourceKey, ProxyRejection> rejected() {
        return Map.copyOf(rejected);
    }

    /** Makes a translation the current one and sends every session whose scope's snapshot changed. */
    public void publish(Translation t) {
        synchronized (this) {
            if (!rejected.isEmpty()) {
                rejected.entrySet().removeIf(e -> {
                    var r = t.report(e.getKey());
                    return r == null || r.generation() != e.getValue().generation();
                });
            }
            latest = t;
            encoded.clear();
            deltas.clear();
            for (Scope s : t.scopes()) {
                seq(s, t.snapshot(s).version());
            }
            for (ProxySession s : sessions.values()) {
                if (s.scope != null) {
                    send(s);
                }
            }
        }
        changed();
    }

    /** The scope a proxy serves. */
    public Scope scopeOf(ProxyIdentity id) {
        return id.sidecar() ? defaults.scopeOf(defaults.sidecarClass(), id.namespace()) : Scope.ingress(id.ingressClass());
    }

    synchronized Translation latest() {
        return latest;
    }

    void joined(ProxySession s, ProxyIdentity id) {
        synchronized (this) {
            s.identity = id;
            s.scope = scopeOf(id);
            sessions.put(s.id, s);
            if (latest != null) {
                send(s);
            }
        }
        log.info("proxy {} ({}) joined for {}", s.id, s.remote, s.scope);
        changed();
    }

    void acked(ProxySession s, String version) {
        synchronized (this) {
            s.acked = version;
            s.ackedSeq = seqOf(s.scope, version);
            if (s.nacked != null && seqOf(s.scope, s.nacked) <= s.ackedSeq) {
                s.nacked = null;
                s.nackError = null;
            }
            sendHeldBack(s);
        }
        log.debug("proxy {} ACKed {}", s.id, version);
        changed();
    }

    void nacked(ProxySession s, String version, String error) {
        boolean newlyRejected = false;
        synchronized (this) {
            s.nacked = version;
            s.nackError = error;
            Translation t = s.scope == null ? null : sources.getOrDefault(s.scope, new LinkedHashMap<>()).get(version);
            if (t != null && error != null) {
                for (Map.Entry<ResourceKey, ProxyRejection> e : rejections(t, s.scope, error, s.remote).entrySet()) {
                    newlyRejected |= !e.getValue().equals(rejected.put(e.getKey(), e.getValue()));
                }
            }
            sendHeldBack(s);
        }
        log.warn("proxy {} ({}) refused version {}: {}", s.id, s.identity, version, error);
        changed();
        if (newlyRejected) {
            for (Runnable r : rejectionListeners) {
                r.run();
            }
        }
    }

    private static final Pattern ROUTE_ERROR = Pattern.compile("routes\\[(\\d+)]([^:\\s]*): (.*)");

    /**
     * The Routes and Ingresses a NACK of one of {@code t}'s snapshots names: each line of the proxy's
     * error about {@code routes[i]} is about the i-th Route of that snapshot, whose model name says which
     * resource it came from ({@code ns.name}, or {@code ns.name..ingress-N} and its suffixes for an Ingress's
     * N-th host).
     * Errors about anything else (listeners, upstreams) name no resource and leave nothing out.
     */
    static Map<ResourceKey, ProxyRejection> rejections(Translation t, Scope scope, String error, String proxy) {
        List<dev.strait.model.Route> routes = t.snapshot(scope).config().routes();
        Map<ResourceKey, ProxyRejection> out = new LinkedHashMap<>();
        for (String line : error.split("\n")) {
            Matcher m = ROUTE_ERROR.matcher(line.trim());
            if (!m.lookingAt()) {
                continue;
            }
            int i;
            try {
                i = Integer.parseInt(m.group(1));
            } catch (NumberFormatException e) {
                continue;
            }
            if (i >= routes.size()) {
                continue;
            }
            String model = routes.get(i).name();
            int dot = model.indexOf('.');
            if (dot <= 0) {
                continue;
            }
            String ns = model.substring(0, dot);
            String name = model.substring(dot + 1);
            String piece = name;
            String kind = "Route";
            int ing = name.indexOf(Translator.INGRESS_PIECE);
            if (ing >= 0) {
                // Any of an Ingress's Routes: a host's paths, its defaultBackend or its redirect to https.
                kind = "Ingress";
                name = name.substring(0, ing);
            }
            ResourceKey key = new ResourceKey(kind, ns, name);
            var report = t.report(key);
            if (report == null) {
                continue;
            }
            String message = "spec" + m.group(2) + ": " + m.group(3);
            ProxyRejection before = out.get(key);
            out.put(key, new ProxyRejection(report.generation(), piece, before == null
                    ? message + " (refused by the proxy at " + proxy + "; left out until the " + kind + " changes)"
                    : before.message() + "; " + message));
        }
        return out;
    }

    /**
     * A proxy could not apply a delta (it serves another version than its base, or the result did not hash
     * to the version): not a refusal of the config, so not reported as one; it gets the whole snapshot.
     */
    void resync(ProxySession s, String version, String why) {
        log.info("proxy {} ({}) asks for a whole snapshot instead of delta {}: {}", s.id, s.identity, version, why);
        synchronized (this) {
            s.sent = null;
            if (latest != null && sessions.containsKey(s.id)) {
                send(s);
            }
        }
    }

    /** A delta proxy answered: what was held back while it had not may go now. */
    private void sendHeldBack(ProxySession s) {
        if (s.deltas && latest != null && sessions.containsKey(s.id)) {
            send(s);
        }
    }

    /** Whole snapshots and deltas sent so far (all sessions). */
    public synchronized long snapshotsSent() {
        return snapshotsSent;
    }

    public synchronized long deltasSent() {
        return deltasSent;
    }

    void left(ProxySession s) {
        boolean was;
        synchronized (this) {
            was = sessions.remove(s.id) != null;
        }
        if (was) {
            log.info("proxy {} ({}) left", s.id, s.remote);
            changed();
        }
    }

    /** Every connected proxy that said hello. */
    public synchronized List<ProxyState> proxies() {
        List<ProxyState> out = new ArrayList<>(sessions.size());
        for (ProxySession s : sessions.values()) {
            out.add(new ProxyState(s.id, s.remote, s.identity, s.scope, s.acked, s.ackedSeq, s.nacked, s.nackError));
        }
        return out;
    }

    /** A version's place in its scope's history, -1 when unknown or forgotten. */
    public synchronized long seqOf(Scope scope, String version) {
        History h = history.get(scope);
        Long n = h == null || version == null ? null : h.seq.get(version);
        return n == null ? -1 : n;
    }

    /** The newest version published for a scope, or null. */
    public synchronized String latestVersion(Scope scope) {
        return latest == null ? null : latest.snapshot(scope).version();
    }

    /** The place of a scope's newest version. */
    public synchronized long currentSeq(Scope scope) {
        History h = history.get(scope);
        return h == null ? -1 : h.next - 1;
    }

    /** A session's socket drained: send what it missed, if anything (only the latest version). */
    void writable(ProxySession s) {
        synchronized (this) {
            if (latest != null && s.scope != null && sessions.containsKey(s.id)) {
                send(s);
            }
        }
    }

    private void send(ProxySession s) {
        Translation.Snapshot snap = latest.snapshot(s.scope);
        if (snap.version().equals(s.sent)) {
            return;
        }
        if (!s.writable()) {
            // A slow proxy still has an earlier snapshot queued: skip the versions in between and send
            // the latest once its socket drains, instead of queueing megabytes per change.
            return;
        }
        if (s.deltas && s.sent != null) {
            if (!s.sent.equals(s.acked) && !s.sent.equals(s.nacked)) {
                return; // its answer to what was sent is on the way, and says what the next delta is built on
            }
            byte[] delta = s.acked == null ? null : delta(s.scope, s.acked, snap);
            if (delta != null) {
                seq(s.scope, snap.version());
                remember(s.scope, snap);
                s.sent = snap.version();
                s.write(delta);
                deltasSent++;
                return;
            }
        }
        seq(s.scope, snap.version());
        remember(s.scope, snap);
        byte[] bytes = encoded.computeIfAbsent(s.scope, sc -> Messages.snapshot(snap.version(), snap.json()));
        s.sent = snap.version();
        s.write(bytes);
        snapshotsSent++;
    }

    private void remember(Scope scope, Translation.Snapshot snap) {
        LinkedHashMap<String, Translation> from = sources.computeIfAbsent(scope, x -> new LinkedHashMap<>());
        if (from.get(snap.version()) != latest) {
            from.remove(snap.version());
            from.put(snap.version(), latest);
            if (from.size() > DOCUMENTS) {
                from.remove(from.keySet().iterator().next());
            }
        }
        LinkedHashMap<String, String> docs = documents.computeIfAbsent(scope, x -> new LinkedHashMap<>());
        docs.remove(snap.version());
        docs.put(snap.version(), snap.json());
        lastTree.put(scope, Map.entry(snap.version(), snap.tree()));
        if (docs.size() > DOCUMENTS) {
            docs.remove(docs.keySet().iterator().next());
        }
    }

    /**
     * The delta message from {@code base} to a scope's latest snapshot, or null to send it whole. Checked
     * by applying it here: only a delta that gives exactly the snapshot's document is sent.
     */
    private byte[] delta(Scope scope, String base, Translation.Snapshot snap) {
        byte[] d = deltas.computeIfAbsent(scope, x -> new HashMap<>()).computeIfAbsent(base, b -> {
            String baseJson = documents.getOrDefault(scope, new LinkedHashMap<>()).get(b);
            if (baseJson == null) {
                return WHOLE;
            }
            Map.Entry<String, ObjectNode> last = lastTree.get(scope);
            ObjectNode from = last != null && last.getKey().equals(b) ? last.getValue() : tree(baseJson);
            byte[] bytes = deltaMessage(from, b, snap);
            return bytes == null ? WHOLE : bytes;
        });
        return d == WHOLE ? null : d;
    }

    /**
     * The delta message from a base document (its tree and version) to a snapshot, or null when a whole
     * snapshot is the better message: the delta cannot express it, does not give exactly the snapshot's
     * document when applied, or is not smaller. Reads its arguments only.
     */
    private static byte[] deltaMessage(ObjectNode from, String baseVersion, Translation.Snapshot snap) {
        ObjectNode target = snap.tree();
        ObjectNode diff = ConfigDelta.diff(from, target);
        if (diff == null || !ConfigDelta.apply(from, diff).equals(target)) {
            return null;
        }
        byte[] bytes = Messages.delta(baseVersion, snap.version(), diff);
        return bytes.length < snap.json().length() ? bytes : null;
    }

    /**
     * What a publication computes per session for a proxy on {@code before} that gets {@code after} (the
     * delta, checked by applying it, and its message), without any session, history or document of this
     * fleet: for warming that code up on throwaway translations (ADR 0030). Returns the message's size, -1
     * when a whole snapshot would be sent.
     */
    public static int rehearse(Translation.Snapshot before, Translation.Snapshot after) {
        byte[] bytes = deltaMessage(before.tree(), before.version(), after);
        return bytes == null ? -1 : bytes.length;
    }

    private static ObjectNode tree(String json) {
        try {
            return (ObjectNode) Messages.JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private long seq(Scope scope, String version) {
        History h = history.computeIfAbsent(scope, x -> new History());
        Long n = h.seq.get(version);
        if (n == null || n != h.next - 1) {
            // A version seen before and published again (an undo) is newer now: renumber it.
            h.seq.remove(version);
            n = h.next++;
            h.seq.put(version, n);
            if (h.seq.size() > HISTORY) {
                h.seq.remove(h.seq.keySet().iterator().next());
            }
        }
        return n;
    }

    private void changed() {
        for (Runnable r : listeners) {
            try {
                r.run();
            } catch (RuntimeException e) {
                log.warn("fleet listener failed", e);
            }
        }
    }

    private static final class History {
        final LinkedHashMap<String, Long> seq = new LinkedHashMap<>();
        long next;
    }
}
