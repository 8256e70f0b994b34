package org.openbox.controller;

import io.micrometer.observation.ObservationPredicate;
import org.openbox.catalogue.Catalogue;
import org.openbox.controller.aggregate.ChainComposer;
import org.openbox.controller.aggregate.FallbackComposer;
import org.openbox.controller.aggregate.GraphComposer;
import org.openbox.controller.aggregate.MergingComposer;
import org.openbox.controller.aggregate.TrafficClasses;
import org.openbox.controller.apps.ModuleRegistry;
import org.openbox.controller.southbound.JsonLimitsConfig;
import org.openbox.merge.MergeOptions;
import org.openbox.protocol.MessageCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.server.observation.ServerRequestObservationContext;

/** Shared building blocks: the protocol codec, the block catalogue and the graph composer. */
@Configuration
public class ControllerConfig {

    private static final Logger log = LoggerFactory.getLogger(ControllerConfig.class);

    /** The protocol codec, its parser bounded by {@code openbox.limits} (depth, string length). */
    @Bean
    public MessageCodec messageCodec(LimitsProperties limits) {
        MessageCodec codec = new MessageCodec();
        JsonLimitsConfig.limit(codec.mapper(), limits);
        return codec;
    }

    @Bean
    public Catalogue catalogue() {
        return Catalogue.load();
    }

    /**
     * No HTTP server observation (timer, long-task timer, tags) for the southbound endpoint:
     * it is the controller's hot path (every KeepAlive, response, Alert) and
     * {@code openbox_messages_total} already counts its messages by type. The management API
     * keeps {@code http_server_requests}.
     */
    @Bean
    public ObservationPredicate noSouthboundObservation() {
        return (name, context) -> !(context instanceof ServerRequestObservationContext c
                && c.getCarrier() != null
                && c.getCarrier().getRequestURI().startsWith("/message/"));
    }

    /** The operator's traffic classes, checked at start-up. */
    @Bean
    public TrafficClasses trafficClasses(TrafficClassProperties props) {
        return TrafficClasses.parse(props.trafficClass());
    }

    /** The graph merger, with an unmerged chain as fallback when merging fails. */
    @Bean
    public GraphComposer graphComposer(ModuleRegistry modules, OpenboxProperties props) {
        GraphComposer chain = new ChainComposer(modules::catalogue);
        GraphComposer merging;
        try {
            merging = new MergingComposer(modules::catalogue, new MergeOptions(props.maxRules(), props.mergeFold()));
        } catch (RuntimeException | LinkageError e) {
            log.error("graph merger unavailable ({}); applications are chained without merging", e.toString());
            return chain;
        }
        return new FallbackComposer(merging, chain);
    }
}
