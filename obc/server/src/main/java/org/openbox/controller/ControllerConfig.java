package org.openbox.controller;

import org.openbox.catalogue.Catalogue;
import org.openbox.controller.aggregate.GraphComposer;
import org.openbox.controller.aggregate.MergingComposer;
import org.openbox.merge.GraphMerger;
import org.openbox.protocol.MessageCodec;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Shared building blocks: the protocol codec, the block catalogue and the graph composer. */
@Configuration
public class ControllerConfig {

    @Bean
    public MessageCodec messageCodec() {
        return new MessageCodec();
    }

    @Bean
    public Catalogue catalogue() {
        return Catalogue.load();
    }

    @Bean
    public GraphComposer graphComposer(Catalogue catalogue, OpenboxProperties props) {
        return new MergingComposer(new GraphMerger(catalogue), props.maxRules());
    }
}
