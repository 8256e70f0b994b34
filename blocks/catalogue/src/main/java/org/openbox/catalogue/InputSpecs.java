package org.openbox.catalogue;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The input specifications of Ipv4AddressTranslator (spec 5.13): {@code discard},
 * {@code pass OUT}, {@code keep FOUT ROUT}, {@code pattern SADDR SPORT DADDR DPORT FOUT ROUT}.
 * The block's output count is the largest output named, plus one (at least one).
 */
public final class InputSpecs {

    private InputSpecs() {}

    /** Output count for an {@code input_spec} array; malformed or absent specs count as naming no output. */
    public static int outputCount(JsonNode inputSpecs) {
        int max = -1;
        if (inputSpecs != null && inputSpecs.isArray()) {
            for (JsonNode spec : inputSpecs) {
                if (!spec.isTextual()) {
                    continue;
                }
                try {
                    for (int out : outputsOf(spec.asText())) {
                        max = Math.max(max, out);
                    }
                } catch (IllegalArgumentException e) {
                    // validation reports it; a count is still needed for messages
                }
            }
        }
        return Math.max(1, max + 1);
    }

    /**
     * The output ports one input spec names.
     *
     * @throws IllegalArgumentException with a message saying what is wrong
     */
    public static int[] outputsOf(String spec) {
        String[] t = spec.trim().split("\\s+");
        return switch (t[0]) {
            case "discard" -> {
                expect(spec, t, 1);
                yield new int[0];
            }
            case "pass" -> {
                expect(spec, t, 2);
                yield new int[] {port(spec, t[1])};
            }
            case "keep" -> {
                expect(spec, t, 3);
                yield new int[] {port(spec, t[1]), port(spec, t[2])};
            }
            case "pattern" -> {
                expect(spec, t, 7);
                yield new int[] {port(spec, t[5]), port(spec, t[6])};
            }
            default -> throw new IllegalArgumentException(
                    "input spec '" + spec + "' must start with discard, pass, keep or pattern");
        };
    }

    private static void expect(String spec, String[] tokens, int n) {
        if (tokens.length != n) {
            throw new IllegalArgumentException("input spec '" + spec + "' needs " + n + " words, has " + tokens.length);
        }
    }

    private static int port(String spec, String token) {
        try {
            int p = Integer.parseInt(token);
            if (p >= 0 && p < 1024) {
                return p;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new IllegalArgumentException("input spec '" + spec + "': '" + token + "' is not an output port number");
    }
}
