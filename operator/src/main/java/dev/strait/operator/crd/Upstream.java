package dev.strait.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A named group of endpoints (a Service's ready endpoints) that Route backends send traffic to. */
@Group(Route.GROUP)
@Version(Route.VERSION)
@ShortNames("sup")
@AdditionalPrinterColumn(name = "Service", jsonPath = ".spec.service.name", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Port", jsonPath = ".spec.service.port", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Programmed", jsonPath = ".status.conditions[?(@.type==\"Programmed\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class Upstream extends CustomResource<UpstreamSpec, ResourceStatus> implements Namespaced {
}
