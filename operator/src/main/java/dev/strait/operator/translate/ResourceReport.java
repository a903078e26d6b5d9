package dev.strait.operator.translate;

import java.util.List;
import java.util.Set;

/**
 * What the translation made of one Route or Upstream at one generation.
 *
 * @param generation   the {@code metadata.generation} translated
 * @param accepted     {@code Accepted}: is the spec valid (and, for a Route, did it win its conflicts)
 * @param resolvedRefs {@code ResolvedRefs}: do the Services, Upstreams and Secrets it names exist
 * @param scopes       the scopes whose snapshots carry it (empty when it is in none)
 * @param errors       every problem, each naming its field ({@code spec.rules[2].backends[0].upstream: ...})
 */
public record ResourceReport(
        ResourceKey key,
        long generation,
        StatusCondition accepted,
        StatusCondition resolvedRefs,
        Set<Scope> scopes,
        List<String> errors) {

    public ResourceReport {
        scopes = Set.copyOf(scopes);
        errors = List.copyOf(errors);
    }

    /** Whether some snapshot carries it. */
    public boolean inSnapshot() {
        return !scopes.isEmpty();
    }
}
