package dev.strait.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A virtual host: the host names it answers and its rules, tried in the documented precedence
 * (see docs/config.md).
 */
public record Route(String name, List<String> hosts, List<Rule> rules) {

    public Route {
        hosts = List.copyOf(hosts);
        rules = List.copyOf(rules);
    }

    /** One rule: when any of its matches fits, its single action answers. */
    public record Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries) {
        public Rule {
            matches = List.copyOf(matches);
        }
    }

    /** All given conditions must hold. An absent path means {@code Prefix /}. */
    public record Match(PathMatch path, String method, List<HeaderMatch> headers) {
        public Match {
            headers = List.copyOf(headers);
        }
    }

    public record PathMatch(PathType type, String value) {}

    public enum PathType { Exact, Prefix, RegularExpression }

    /** Exact header value match; names compare case-insensitively. */
    public record HeaderMatch(String name, String value) {}

    /** What a rule does: exactly one of these. */
    public sealed interface Action permits Respond, Files, Backends {}

    /** A fixed response, pre-encoded when the table is built. */
    public record Respond(int status, String body, Map<String, String> headers) implements Action {
        public Respond {
            headers = Map.copyOf(headers);
        }
    }

    /**
     * Static files under {@code root}.
     *
     * @param followSymlinks serve symlinks that lead out of the root
     */
    public record Files(String root, List<String> index, boolean followSymlinks) implements Action {
        public Files {
            index = List.copyOf(index);
        }
    }

    /** Weighted backends; the proxy action itself arrives with issue 3. */
    public record Backends(List<Backend> backends) implements Action {
        public Backends {
            backends = List.copyOf(backends);
        }
    }

    public record Backend(String upstream, int weight) {}

    public record Cache(boolean enabled) {}

    public record Timeouts(Duration request) {}

    public record Retries(int attempts, List<String> retryOn) {
        public Retries {
            retryOn = List.copyOf(retryOn);
        }
    }
}
