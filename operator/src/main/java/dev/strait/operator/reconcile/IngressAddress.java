package dev.strait.operator.reconcile;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.networking.v1.IngressLoadBalancerIngress;
import java.util.ArrayList;
import java.util.List;

/**
 * Where an Ingress is reachable, for its status ({@code --ingress-address}): either fixed addresses
 * ({@code 203.0.113.7,lb.example.com}) or {@code NAMESPACE/SERVICE}, the proxies' Service, whose
 * load-balancer addresses are copied (or, without any, its external IPs).
 */
public record IngressAddress(String setting) {

    public List<IngressLoadBalancerIngress> resolve(List<Service> services) {
        if (setting == null || setting.isBlank()) {
            return List.of();
        }
        List<IngressLoadBalancerIngress> out = new ArrayList<>();
        if (setting.contains("/")) {
            String[] nn = setting.trim().split("/", 2);
            for (Service s : services) {
                if (!nn[0].equals(s.getMetadata().getNamespace()) || !nn[1].equals(s.getMetadata().getName())) {
                    continue;
                }
                if (s.getStatus() != null && s.getStatus().getLoadBalancer() != null
                        && s.getStatus().getLoadBalancer().getIngress() != null) {
                    for (LoadBalancerIngress i : s.getStatus().getLoadBalancer().getIngress()) {
                        out.add(entry(i.getIp(), i.getHostname()));
                    }
                }
                if (out.isEmpty() && s.getSpec() != null && s.getSpec().getExternalIPs() != null) {
                    s.getSpec().getExternalIPs().forEach(ip -> out.add(entry(ip, null)));
                }
            }
            return List.copyOf(out);
        }
        for (String a : setting.split(",")) {
            String t = a.trim();
            if (!t.isEmpty()) {
                boolean ip = t.matches("[0-9.]+") || t.contains(":");
                out.add(ip ? entry(t, null) : entry(null, t));
            }
        }
        return List.copyOf(out);
    }

    private static IngressLoadBalancerIngress entry(String ip, String hostname) {
        IngressLoadBalancerIngress i = new IngressLoadBalancerIngress();
        i.setIp(ip);
        i.setHostname(hostname);
        return i;
    }
}
