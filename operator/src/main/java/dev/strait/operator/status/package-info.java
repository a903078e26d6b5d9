/**
 * What each Route and Upstream says in its status: {@code observedGeneration}, the conditions
 * {@code Accepted}, {@code ResolvedRefs} and {@code Programmed} (reason and a message naming the field),
 * the first snapshot version carrying the current generation, and how many proxies of its scope serve
 * it. {@link StatusBoard} computes the desired status from the latest translation and the proxies'
 * ACKs; the reconcilers write it. {@link EventLedger} says which Kubernetes Events a resource's
 * problems call for, on changes only (ADR 0056).
 */
package dev.strait.operator.status;
