/**
 * Sidecar injection: a mutating admission webhook that adds the proxy to pods annotated
 * {@code strait.dev/inject: "true"} as a native sidecar (an init container with
 * {@code restartPolicy: Always}), configured from a pod annotation through the downward API
 * (docs/adr/0013-sidecar-injection.md, docs/deploy.md).
 *
 * <ul>
 *   <li>{@link SidecarInjector}: pure, a pod in, a JSON patch (or the reason for none) out.</li>
 *   <li>{@link AdmissionHandler}: AdmissionReview JSON in and out around the injector.</li>
 *   <li>{@link WebhookServer}: HTTPS on the JDK's server, its certificate swappable while it runs.</li>
 *   <li>{@link WebhookCertificates}: the serving certificate, signed with BouncyCastle by the operator's
 *       CA, and the {@code caBundle} kept current in the MutatingWebhookConfiguration.</li>
 * </ul>
 */
package dev.strait.operator.inject;
