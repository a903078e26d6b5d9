/**
 * The operator's loop, Contour-style on top of java-operator-sdk:
 *
 * <ol>
 *   <li>{@link ClusterCache} keeps informers on Routes, Upstreams, Services, EndpointSlices and TLS
 *       Secrets, and one per ConfigMap that an Ingress names ({@link NamedConfigMaps}); any change that can alter a
 *       snapshot calls {@link Rebuilder#changed()}.</li>
 *   <li>{@link Rebuilder} waits for a quiet 100 ms (at most 1 s after the first change), then translates
 *       the whole cache, publishes the snapshots to the {@link dev.strait.operator.publish.Fleet} and
 *       hands the translation to the {@link dev.strait.operator.status.StatusBoard}. Nothing happens
 *       before every informer has synced. After a rebuild, {@link WarmUp} runs the per-change path on
 *       throwaway state until it is compiled, giving way to every change (ADR 0030).</li>
 *   <li>The board pokes the JOSDK reconcilers ({@link RouteReconciler}, {@link UpstreamReconciler}) of
 *       the resources whose desired status changed; they patch the status subresource. With leader
 *       election only the leader writes status, while every replica serves the channel.</li>
 *   <li>The same reconcilers hand each report to the {@link EventRecorder}, which writes a Kubernetes
 *       Event when a problem appears, changes or goes away, off their threads (ADR 0056).</li>
 * </ol>
 */
package dev.strait.operator.reconcile;
