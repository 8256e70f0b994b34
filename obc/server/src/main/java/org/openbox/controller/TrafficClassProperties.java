package org.openbox.controller;

import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Traffic classes of applications, set by the operator: {@code openbox.traffic-class.<app>}
 * is a header match in JSON (the graph-file syntax, e.g. {@code {"ip_proto":6,"tcp_dst":80}}).
 * On one OBI, applications with pairwise disjoint classes are composed as distinct branches
 * behind one front classifier; see {@link org.openbox.controller.aggregate.CompositionPlan}.
 *
 * @param trafficClass application name -> header match (JSON); none by default
 */
@ConfigurationProperties(prefix = "openbox")
public record TrafficClassProperties(Map<String, String> trafficClass) {

    public TrafficClassProperties {
        trafficClass = trafficClass == null ? Map.of() : Map.copyOf(trafficClass);
    }
}
