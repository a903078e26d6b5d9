package dev.strait.operator.inject;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.Config;
import dev.strait.model.HostPort;

/**
 * What injecting the proxy into one pod means, as a JSON patch (RFC 6902). Pure: no client, no clock.
 *
 * <p>A pod annotated {@code strait.dev/inject: "true"} gets:
 * <ol>
 *   <li>the annotation {@code strait.dev/sidecar-config}: the proxy's config file (JSON, the config
 *       file's shape): a listener on the inbound port forwarding everything to {@code 127.0.0.1:APP_PORT}
 *       (or, with {@code strait.dev/app-socket}, to the app's unix socket, whose volume the sidecar mounts too),
 *       and the admin listener on the admin port;</li>
 *   <li>a {@code downwardAPI} volume that projects that annotation as {@code /etc/strait/config.json}, and an
 *       {@code emptyDir} as {@code /tmp}: the root is read-only, and native libraries (Netty's io_uring and epoll
 *       transports, zstd, brotli) are unpacked there before they load (without it the proxy runs on NIO), and
 *       request bodies read first go there past what is held in memory, within the operator's budget;</li>
 *   <li>the proxy as the first init container with {@code restartPolicy: Always} (a native sidecar:
 *       it starts before the app, its startup probe holds the app back until it serves, it does not
 *       keep a Job from completing, and its readiness counts in the pod's), run with
 *       {@code --config /etc/strait/config.json}, small resources and JVM flags, non-root, read-only, and the pod's
 *       namespace, name and node (downward API) in {@code OTEL_RESOURCE_ATTRIBUTES} for its spans' resource.</li>
 * </ol>
 * A pod that already has the sidecar is left unchanged, so a re-invocation is harmless.
 */
public final class SidecarInjector {
    public static final String INJECT = "strait.dev/inject";
    public static final String INBOUND_PORT = "strait.dev/inbound-port";
    public static final String APP_PORT = "strait.dev/app-port";
    /** The app's unix socket, as its container sees it (ADR 0103): the sidecar reaches the app there, not on a port. */
    public static final String APP_SOCKET = "strait.dev/app-socket";
    /** Where the sidecar mounts the volume that holds the app's socket (its own path: no clash with /tmp or the config). */
    static final String SOCKET_DIR = "/run/strait-app";
    public static final String ADMIN_PORT = "strait.dev/admin-port";
    public static final String CONFIG = "strait.dev/sidecar-config";
    public static final String CONTAINER = "strait-proxy";
    static final String VOLUME = "strait-sidecar-config";
    static final String TMP_VOLUME = "strait-sidecar-tmp";
    static final String CONFIG_DIR = "/etc/strait";
    static final String CONFIG_FILE = CONFIG_DIR + "/config.json";
    static final String RESOURCE_ATTRIBUTES = "k8s.namespace.name=$(STRAIT_POD_NAMESPACE),k8s.pod.name=$(STRAIT_POD_NAME),"
            + "k8s.node.name=$(STRAIT_NODE_NAME)";
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param image         the proxy image
     * @param defaultInbound the inbound port when the pod does not name one
     * @param defaultAdmin   the admin port when the pod does not name one
     * @param cpuRequest     e.g. {@code 50m}
     * @param memoryRequest  e.g. {@code 64Mi}
     * @param memoryLimit    e.g. {@code 128Mi}
     * @param javaOpts       JVM flags added to the launcher's ({@code proxy/bin/strait-proxy})
     * @param requestBodyFilesMaxBytes the most the sidecar's request body files hold at once (the operator's
     *                       {@code --proxy-request-body-files-max-bytes}, the budget its snapshots give every proxy):
     *                       its {@code /tmp} is sized for it
     */
    public record Settings(String image, int defaultInbound, int defaultAdmin, String cpuRequest,
                           String memoryRequest, String memoryLimit, String javaOpts, long requestBodyFilesMaxBytes) {
        public Settings {
            if (requestBodyFilesMaxBytes < 0) {
                throw new IllegalArgumentException("requestBodyFilesMaxBytes must be 0 or more, got "
                        + requestBodyFilesMaxBytes);
            }
        }

        /** The same settings with another request body file budget, in bytes (0: no files). */
        public Settings withRequestBodyFilesMaxBytes(long maxBytes) {
            return new Settings(image, defaultInbound, defaultAdmin, cpuRequest, memoryRequest, memoryLimit, javaOpts,
                    maxBytes);
        }

        public static Settings defaults(String image) {
            return new Settings(image, 15001, 15000, "50m", "64Mi", "128Mi",
                    // Idle RSS 62.4-62.9 MiB on JDK 17 (docs/deploy.md); C1 only: less compiler memory and code cache.
                    "-Xmx32m -XX:MaxDirectMemorySize=32m -XX:ActiveProcessorCount=1 -XX:TieredStopAtLevel=1"
                            + " -XX:ReservedCodeCacheSize=16m -XX:-UsePerfData" // no hsperfdata file: read-only root
                            // The JDK's class-data archive at its own address, unrelocated: its pages stay clean
                            // and shared by every sidecar on the node, 6 MiB less private memory each (ADR 0037).
                            + " -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0",
                    Config.RequestBodyFiles.DEFAULTS.maxBytes());
        }
    }

    /** What the unpacked native libraries take in {@code /tmp} (about 3 MB, with room), besides the body files. */
    static final long NATIVE_LIBRARIES_MIB = 16;

    /**
     * The sidecar's {@code /tmp} {@code sizeLimit}: the native libraries' 16Mi and the request body files' budget,
     * rounded up to a whole Mi, so the files can never outgrow the volume ({@code 272Mi} for the default 256 MiB,
     * {@code 16Mi} for 0). The chart sizes the proxies' {@code /tmp} the same way (helm/strait/templates/_helpers.tpl).
     */
    static String tmpSizeLimit(long requestBodyFilesMaxBytes) {
        long mib = requestBodyFilesMaxBytes / (1L << 20) + (requestBodyFilesMaxBytes % (1L << 20) == 0 ? 0 : 1);
        return (NATIVE_LIBRARIES_MIB + mib) + "Mi";
    }

    /** Either a patch (maybe empty: nothing to do) or, when the annotations are unusable, a warning and no patch. */
    public record Result(ArrayNode patch, String warning) {
        public boolean changes() {
            return patch != null && !patch.isEmpty();
        }
    }

    private final Settings settings;

    public SidecarInjector(Settings settings) {
        this.settings = settings;
    }

    public Result inject(JsonNode pod) {
        ArrayNode patch = JSON.createArrayNode();
        JsonNode annotations = pod.path("metadata").path("annotations");
        if (!"true".equals(annotations.path(INJECT).asText())) {
            return new Result(patch, null);
        }
        JsonNode spec = pod.path("spec");
        if (has(spec.path("initContainers"), CONTAINER) || has(spec.path("containers"), CONTAINER)) {
            return new Result(patch, null); // already injected
        }
        Integer inbound = port(annotations.path(INBOUND_PORT), settings.defaultInbound());
        Integer admin = port(annotations.path(ADMIN_PORT), settings.defaultAdmin());
        if (inbound == null || admin == null) {
            return new Result(null, "strait.dev/inbound-port and strait.dev/admin-port must be port numbers 1-65535");
        }
        String endpoint;
        ObjectNode socketMount = null;
        JsonNode socketAnnotation = annotations.path(APP_SOCKET);
        if (socketAnnotation.isTextual()) {
            socketMount = JSON.createObjectNode();
            endpoint = socketEndpoint(spec, socketAnnotation.asText().trim(), socketMount);
            if (!endpoint.startsWith(HostPort.UNIX)) {
                return new Result(null, APP_SOCKET + ": " + endpoint);
            }
            if (admin.equals(inbound)) {
                return new Result(null, "the inbound (" + inbound + ") and admin (" + admin + ") ports must differ");
            }
        } else {
            Integer app = port(annotations.path(APP_PORT), firstContainerPort(spec));
            if (app == null) {
                return new Result(null, "strait.dev/app-port: a port number 1-65535 is required (no containerPort to take it"
                        + " from)");
            }
            if (inbound.equals(app) || admin.equals(app) || admin.equals(inbound)) {
                return new Result(null, "the inbound (" + inbound + "), app (" + app + ") and admin (" + admin
                        + ") ports must differ: the proxy and the app share the pod's network");
            }
            endpoint = "127.0.0.1:" + app;
        }

        String config = config(inbound, endpoint, admin).toString();
        if (annotations.isObject()) {
            patch.addObject().put("op", "add").put("path", "/metadata/annotations/" + escape(CONFIG)).put("value", config);
        } else {
            ObjectNode a = patch.addObject().put("op", "add").put("path", "/metadata/annotations").putObject("value");
            a.put(CONFIG, config);
        }
        ObjectNode volume = JSON.createObjectNode().put("name", VOLUME);
        volume.putObject("downwardAPI").putArray("items").addObject()
                .put("path", "config.json")
                .putObject("fieldRef").put("fieldPath", "metadata.annotations['" + CONFIG + "']");
        ObjectNode tmp = JSON.createObjectNode().put("name", TMP_VOLUME);
        // The unpacked native libraries (about 3 MB; 16Mi) and the request bodies that outgrow memory (at most
        // requestBodyFiles.maxBytes, the operator's budget: past it the proxy streams a body instead of writing more).
        // The kubelet evicts a pod whose emptyDir outgrows its sizeLimit, so the limit covers both.
        tmp.putObject("emptyDir").put("sizeLimit", tmpSizeLimit(settings.requestBodyFilesMaxBytes()));
        add(patch, spec, "volumes", false, volume, tmp);
        ObjectNode proxy = container(inbound, admin);
        if (socketMount != null) {
            ((ArrayNode) proxy.get("volumeMounts")).add(socketMount);
        }
        add(patch, spec, "initContainers", true, proxy);
        return new Result(patch, null);
    }

    /**
     * The sidecar's endpoint for the app's socket {@code path}: the volume that holds it in an app container (the
     * mount nearest to it) is mounted into the sidecar at {@link #SOCKET_DIR}, described into {@code mount}; the
     * answer is {@code unix:} and the socket's path there. Anything else returned is why it cannot be done.
     */
    static String socketEndpoint(JsonNode spec, String path, ObjectNode mount) {
        try {
            HostPort.parseEndpoint(HostPort.UNIX + path);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        JsonNode best = null;
        String bestPath = null;
        for (JsonNode c : spec.path("containers")) {
            for (JsonNode m : c.path("volumeMounts")) {
                String at = m.path("mountPath").asText("");
                String dir = at.endsWith("/") ? at.substring(0, at.length() - 1) : at;
                if (!dir.isEmpty() && path.startsWith(dir + "/") && (bestPath == null || dir.length() > bestPath.length())) {
                    best = m;
                    bestPath = dir;
                }
            }
        }
        if (best == null) {
            return "no container of the pod mounts a volume holding " + path + "; mount one (an emptyDir) where the app"
                    + " makes its socket, so that the sidecar can mount it too";
        }
        if (best.has("subPathExpr")) {
            return "the volume holding " + path + " is mounted with subPathExpr, whose variables are the app's; use subPath";
        }
        mount.put("name", best.path("name").asText()).put("mountPath", SOCKET_DIR);
        if (best.path("subPath").isTextual()) {
            mount.put("subPath", best.path("subPath").asText());
        }
        String inSidecar = SOCKET_DIR + path.substring(bestPath.length());
        try {
            return HostPort.parseEndpoint(HostPort.UNIX + inSidecar).toString();
        } catch (IllegalArgumentException e) {
            return "in the sidecar at " + inSidecar + ": " + e.getMessage();
        }
    }

    /** The proxy's config: everything arriving on the inbound port goes to the app ({@code 127.0.0.1:PORT} or a socket). */
    ObjectNode config(int inbound, String endpoint, int admin) {
        ObjectNode c = JSON.createObjectNode();
        c.put("workers", 1);
        c.putObject("accessLog").put("enabled", false);
        c.putArray("listeners").addObject().put("name", "inbound").put("address", "0.0.0.0:" + inbound);
        c.putObject("admin").put("address", "0.0.0.0:" + admin);
        c.putArray("upstreams").addObject().put("name", "app").putArray("endpoints").add(endpoint);
        ObjectNode route = c.putArray("routes").addObject().put("name", "app");
        route.putArray("hosts").add("*");
        route.putArray("rules").addObject().putArray("backends").addObject().put("upstream", "app");
        if (settings.requestBodyFilesMaxBytes() != Config.RequestBodyFiles.DEFAULTS.maxBytes()) {
            // The budget /tmp is sized for, also in the config the sidecar starts with: a smaller volume must never
            // meet the proxy's larger default. Left out otherwise, so the annotation stays as it was.
            c.putObject("requestBodyFiles").put("maxBytes", settings.requestBodyFilesMaxBytes());
        }
        return c;
    }

    private ObjectNode container(int inbound, int admin) {
        ObjectNode c = JSON.createObjectNode();
        c.put("name", CONTAINER);
        c.put("image", settings.image());
        c.put("restartPolicy", "Always");
        c.putArray("args").add("--config").add(CONFIG_FILE);
        ArrayNode env = c.putArray("env");
        env.addObject().put("name", "JAVA_OPTS").put("value", settings.javaOpts());
        env.addObject().put("name", "STRAIT_CDS").put("value", "off"); // read-only root: no class archive to write
        // The spans' resource names the pod (OpenTelemetry's k8s.* conventions), from the downward API as the
        // container starts: when admitted, a pod has no node yet, and one made from generateName no name. The
        // first two are also the proxy's sidecar identity, should it take --control. $(VAR) expands only
        // variables listed before it.
        fieldRef(env, "STRAIT_POD_NAMESPACE", "metadata.namespace");
        fieldRef(env, "STRAIT_POD_NAME", "metadata.name");
        fieldRef(env, "STRAIT_NODE_NAME", "spec.nodeName");
        env.addObject().put("name", "OTEL_RESOURCE_ATTRIBUTES").put("value", RESOURCE_ATTRIBUTES);
        ArrayNode ports = c.putArray("ports");
        ports.addObject().put("name", "strait-inbound").put("containerPort", inbound).put("protocol", "TCP");
        ports.addObject().put("name", "strait-admin").put("containerPort", admin).put("protocol", "TCP");
        ObjectNode startup = c.putObject("startupProbe");
        startup.putObject("httpGet").put("path", "/readyz").put("port", admin);
        startup.put("periodSeconds", 1).put("failureThreshold", 60);
        ObjectNode ready = c.putObject("readinessProbe");
        ready.putObject("httpGet").put("path", "/readyz").put("port", admin);
        ready.put("periodSeconds", 5).put("failureThreshold", 2);
        ObjectNode live = c.putObject("livenessProbe");
        live.putObject("httpGet").put("path", "/healthz").put("port", admin);
        live.put("periodSeconds", 10).put("failureThreshold", 3);
        ObjectNode res = c.putObject("resources");
        res.putObject("requests").put("cpu", settings.cpuRequest()).put("memory", settings.memoryRequest());
        res.putObject("limits").put("memory", settings.memoryLimit());
        ObjectNode sec = c.putObject("securityContext");
        sec.put("runAsNonRoot", true).put("runAsUser", 65532).put("readOnlyRootFilesystem", true)
                .put("allowPrivilegeEscalation", false);
        sec.putObject("capabilities").putArray("drop").add("ALL");
        ArrayNode mounts = c.putArray("volumeMounts");
        mounts.addObject().put("name", VOLUME).put("mountPath", CONFIG_DIR).put("readOnly", true);
        mounts.addObject().put("name", TMP_VOLUME).put("mountPath", "/tmp");
        return c;
    }

    private static void fieldRef(ArrayNode env, String name, String fieldPath) {
        env.addObject().put("name", name).putObject("valueFrom").putObject("fieldRef").put("fieldPath", fieldPath);
    }

    /** Adds to a list that may not exist yet; {@code first} puts the items before the others. */
    private static void add(ArrayNode patch, JsonNode spec, String field, boolean first, ObjectNode... items) {
        JsonNode list = spec.path(field);
        if (!list.isArray()) {
            patch.addObject().put("op", "add").put("path", "/spec/" + field).putArray("value").addAll(java.util.List.of(items));
            return;
        }
        for (int i = 0; i < items.length; i++) {
            patch.addObject().put("op", "add").put("path", "/spec/" + field + (first ? "/" + i : "/-")).set("value", items[i]);
        }
    }

    private static boolean has(JsonNode containers, String name) {
        for (JsonNode c : containers) {
            if (name.equals(c.path("name").asText())) {
                return true;
            }
        }
        return false;
    }

    private static Integer firstContainerPort(JsonNode spec) {
        for (JsonNode c : spec.path("containers")) {
            for (JsonNode p : c.path("ports")) {
                if (p.path("containerPort").isInt() && !"UDP".equals(p.path("protocol").asText("TCP"))) {
                    return p.path("containerPort").asInt();
                }
            }
        }
        return null;
    }

    private static Integer port(JsonNode annotation, Integer fallback) {
        if (annotation.isMissingNode() || annotation.isNull()) {
            return fallback;
        }
        try {
            int p = Integer.parseInt(annotation.asText().trim());
            return p >= 1 && p <= 65535 ? p : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** RFC 6901: {@code ~} and {@code /} in a key. */
    static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

}
