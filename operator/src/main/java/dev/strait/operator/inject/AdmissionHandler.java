package dev.strait.operator.inject;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code admission.k8s.io/v1} AdmissionReview in, its answer out. A pod is always allowed: the
 * webhook only adds the sidecar, it never refuses a pod (a pod it cannot inject gets a warning, which
 * kubectl prints). Anything that is not a pod creation is allowed unchanged.
 */
public final class AdmissionHandler {
    private static final Logger log = LoggerFactory.getLogger(AdmissionHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SidecarInjector injector;

    public AdmissionHandler(SidecarInjector injector) {
        this.injector = injector;
    }

    /** @throws IOException when the body is not an AdmissionReview (answered 400) */
    public byte[] handle(byte[] body) throws IOException {
        JsonNode review = JSON.readTree(body);
        JsonNode request = review == null ? null : review.get("request");
        if (request == null || !request.path("uid").isTextual()) {
            throw new IOException("not an AdmissionReview with a request.uid");
        }
        ObjectNode out = JSON.createObjectNode();
        out.put("apiVersion", review.path("apiVersion").asText("admission.k8s.io/v1"));
        out.put("kind", "AdmissionReview");
        ObjectNode response = out.putObject("response");
        response.put("uid", request.get("uid").asText());
        response.put("allowed", true);
        boolean podCreate = "Pod".equals(request.path("kind").path("kind").asText())
                && "CREATE".equals(request.path("operation").asText("CREATE"));
        if (podCreate && request.path("object").isObject()) {
            SidecarInjector.Result r = injector.inject(request.get("object"));
            String pod = request.path("namespace").asText("") + "/" + request.path("object").path("metadata")
                    .path("name").asText(request.path("object").path("metadata").path("generateName").asText("") + "*");
            if (r.warning() != null) {
                response.putArray("warnings").add("strait sidecar not injected: " + r.warning());
                log.info("pod {}: sidecar not injected: {}", pod, r.warning());
            } else if (r.changes()) {
                response.put("patchType", "JSONPatch");
                response.put("patch", Base64.getEncoder().encodeToString(
                        r.patch().toString().getBytes(StandardCharsets.UTF_8)));
                log.debug("pod {}: sidecar injected", pod);
            }
        }
        return JSON.writeValueAsBytes(out);
    }
}
