package dev.strait.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/**
 * The status of a Route or an Upstream: what the operator made of the current generation and how many
 * proxies serve it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ResourceStatus {
    /** The generation the conditions are about. */
    public Long observedGeneration;

    /** {@code Accepted}, {@code ResolvedRefs}, {@code Programmed}. */
    public List<Condition> conditions = new ArrayList<>();

    /** The first snapshot version that carries this generation, once it is in one. */
    public String programmedVersion;

    /** Proxies of this resource's scope, and how many of them have programmed {@link #programmedVersion}. */
    public Proxies proxies;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Proxies {
        /** Connected proxies that serve this resource's scope. */
        public Integer connected;
        /** Of those, how many have ACKed {@code programmedVersion} or a later snapshot. */
        public Integer programmed;
        /** Of those, how many refused the latest snapshot (NACK). */
        public Integer rejected;

        public Proxies() {}

        public Proxies(int connected, int programmed, int rejected) {
            this.connected = connected;
            this.programmed = programmed;
            this.rejected = rejected;
        }
    }
}
