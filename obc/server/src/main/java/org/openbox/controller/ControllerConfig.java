package org.openbox.controller;

import org.openbox.catalogue.Catalogue;
import org.openbox.controller.aggregate.ChainComposer;
import org.openbox.controller.aggregate.FallbackComposer;
import org.openbox.controller.aggregate.GraphComposer;
import org.openbox.controller.aggregate.MergingComposer;
import org.openbox.merge.GraphMerger;
import org.openbox.protocol.MessageCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Shared building blocks: the protocol codec, the block catalogue and the graph composer. */
@Configuration
public class ControllerConfig {

    private static final Logger log = LoggerFactory.getLogger(ControllerConfig.class);

    @Bean
    public MessageCodec messageCodec() {
        return new MessageCodec();
    }

    @Bean
    public Catalogue catalogue() {
        return Catalogue.load();
    }

    /** The graph merger, with an unmerged chain as fallback when merging fails. */
    @Bean
    public GraphComposer graphComposer(Catalogue catalogue, OpenboxProperties props) {
        GraphComposer chain = new ChainComposer();
        GraphComposer merging;
        try {
            merging = new MergingComposer(new GraphMerger(catalogue), props.maxRules());
        } catch (RuntimeException | LinkageError e) {
            log.error("graph merger unavailable ({}); applications are chained without merging", e.toString());
            return chain;
        }
        return new FallbackComposer(merging, chain);
    }
}
