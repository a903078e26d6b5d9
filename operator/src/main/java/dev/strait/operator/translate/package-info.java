/**
 * Pure translation: Routes, Upstreams, Services, EndpointSlices, Secrets, Ingresses and the ConfigMaps they name in,
 * routing-table snapshots ({@link dev.strait.model.Config}) and per-resource reports out. No client calls, no clocks,
 * no threads: the same inputs give the same snapshots and the same content versions, so the hardest
 * logic is tested with plain tables (see docs/adr/0007-operator-translation.md).
 *
 * <ol>
 *   <li>Each Upstream is resolved to its Service's ready endpoints and checked by the config parser.</li>
 *   <li>Each Route is checked by the config parser (so the operator and the proxy agree on what is
 *       valid), its backends and TLS Secret resolved; a Route with a spec error is dropped and reported,
 *       an unresolved reference is reported and degrades only its backend (503) or certificate (ADR 0049), or
 *       leaves out its mirror (the rule serves unmirrored); a rule whose guard (basicAuth's users, forwardAuth's
 *       backend) does not resolve answers 503, never unguarded, and copies nothing to its mirrors. A Route whose hosts ask for client certificates ({@code tls.clientValidation}) is bound to
 *       https alone, and answers 503 until its CA Secret and certificate resolve.</li>
 *   <li>Within each scope, matches claiming a host and path that an older Route claims are dropped from
 *       the younger one and reported on it (oldest wins, then namespace/name, as in Gateway API). The
 *       owners are kept between translations and decided again only for the keys a changed Route
 *       claims or claimed, with everything competing for them (docs/adr/0028-kept-conflict-owners.md).
 *       An Ingress's {@code defaultBackend} competes only with other defaultBackends of the host. A host's
 *       clients are asked for certificates as its oldest Route that asks says; a younger Route asking otherwise
 *       is left out and reported (decided on every translation, after the conflicts).</li>
 *   <li>A snapshot for a scope lists its Routes oldest first, then the Ingresses' defaultBackends
 *       (so any path of a host answers before them, ADR 0056), and the Upstreams they use, sorted; its https
 *       listener has the Routes' certificates and one {@code clientValidation} entry per policy, with its hosts.</li>
 * </ol>
 */
package dev.strait.operator.translate;
