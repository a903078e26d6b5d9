package dev.strait.proxy.testing;

/** Config shapes that many proxy tests share ({@link ProxyHarness#start} adds the listener). */
public final class ProxyConfigs {
    private ProxyConfigs() {}

    /**
     * One worker, the upstream {@code app} and one route sending every request to it.
     *
     * @param endpoints     the endpoints as written inside a YAML list ({@code "127.0.0.1:80", "unix:/s.sock"})
     * @param upstreamExtra more of the upstream's keys, or ""
     * @param ruleExtra     more of the rule's keys, or ""
     */
    public static String proxyAll(String endpoints, String upstreamExtra, String ruleExtra) {
        return """
                workers: 1
                upstreams:
                  - name: app
                    endpoints: [ %s ]
                    %s
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        %s
                """.formatted(endpoints, upstreamExtra, ruleExtra);
    }
}
