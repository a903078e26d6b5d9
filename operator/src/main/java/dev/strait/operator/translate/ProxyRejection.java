package dev.strait.operator.translate;

/**
 * A Route or Ingress that proxies refused to load at one generation (ADR 0050): left out of its scope's
 * snapshots, with {@code message} as its error, until its generation changes. Only a proxy can find some
 * errors (a {@code files.root} that does not exist on the proxy); without this a single such Route made
 * every proxy of its scope refuse every later snapshot, freezing all other changes (endpoints included).
 *
 * @param route   which of the Routes the resource stands for, by its name: a Route's own, or for an Ingress
 *                one of {@code NAME..ingress-N} (a host) and its {@code -default} and {@code -to-https}
 * @param message the proxy's error, its field path about that Route ({@code spec.rules[0]...})
 */
public record ProxyRejection(long generation, String route, String message) {
}
