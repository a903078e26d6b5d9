package dev.strait.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** Virtual hosts and their rules, served by the proxies of its ingress class. */
@Group(Route.GROUP)
@Version(Route.VERSION)
@ShortNames("srt")
@AdditionalPrinterColumn(name = "Hosts", jsonPath = ".spec.hosts", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Class", jsonPath = ".spec.ingressClassName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Programmed", jsonPath = ".status.conditions[?(@.type==\"Programmed\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Proxies", jsonPath = ".status.proxies.programmed",
        type = AdditionalPrinterColumn.Type.INTEGER, priority = 1)
@AdditionalPrinterColumn(name = "Version", jsonPath = ".status.programmedVersion",
        type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class Route extends CustomResource<RouteSpec, ResourceStatus> implements Namespaced {
    public static final String GROUP = "strait.dev";
    public static final String VERSION = "v1alpha1";
}
