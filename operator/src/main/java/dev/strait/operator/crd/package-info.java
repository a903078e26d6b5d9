/**
 * The Java model of Strait's custom resources, {@code Route} and {@code Upstream} in
 * {@code strait.dev/v1alpha1}. The CRD YAML in {@code crds/} is generated from these classes by
 * crd-generator-maven-plugin; {@code CrdFilesTest} fails when the two differ.
 *
 * <p>The specs mirror the config file's shapes and key names (see CONTRACT.md): a Route spec is a
 * {@code routes[]} item without {@code name}, plus {@code ingressClassName} and {@code tls}; an
 * Upstream spec is an {@code upstreams[]} item with {@code service} in place of {@code endpoints}.
 * What the API server can check is declared here (required fields, enums, patterns, bounds, CEL
 * rules for cross-field checks); everything else is checked by the translation, which reports it in
 * the resource's status with the field's path.
 */
package dev.strait.operator.crd;
