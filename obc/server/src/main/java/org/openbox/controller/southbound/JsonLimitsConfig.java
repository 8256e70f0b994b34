package org.openbox.controller.southbound;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.openbox.controller.LimitsProperties;
import org.springframework.boot.autoconfigure.jackson.Jackson2ObjectMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Jackson read limits ({@code openbox.limits.max-json-depth}, {@code max-json-string}) for
 * every JSON body the controller parses: the protocol codec's mapper (southbound messages)
 * and Spring's mapper (management API). Deeper or longer input fails while it is read,
 * before any tree is built.
 */
@Configuration
public class JsonLimitsConfig {

    /** The constraints for the given limits. */
    public static StreamReadConstraints constraints(LimitsProperties limits) {
        return StreamReadConstraints.builder()
                .maxNestingDepth(limits.maxJsonDepth())
                .maxStringLength(
                        (int) Math.min(Integer.MAX_VALUE, limits.maxJsonString().toBytes()))
                .build();
    }

    /** Applies the limits to a mapper's parser factory. */
    public static ObjectMapper limit(ObjectMapper mapper, LimitsProperties limits) {
        mapper.getFactory().setStreamReadConstraints(constraints(limits));
        return mapper;
    }

    @Bean
    public Jackson2ObjectMapperBuilderCustomizer jsonReadLimits(LimitsProperties limits) {
        return builder -> builder.postConfigurer(mapper -> limit(mapper, limits));
    }
}
