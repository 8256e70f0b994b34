package org.openbox.apps.webcache;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.openbox.api.blocks.ProcessingBlock;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.ErrorSubtype;

/**
 * Answers HTTP GET requests for cached objects (a block of our own; its descriptor is
 * apps/webcache/blocks/HttpCacheResponder.json, packaged with this application).
 *
 * <p>Ports: 1 input, 2 outputs. Class: modifier; extension.
 * Output 0: the responses it builds from requests for cached objects (addresses and ports
 * swapped, seq = request ack, ack = request seq + payload length), to be sent back towards
 * the client; the request itself is consumed. Output 1: every other packet, unchanged.
 * Config: entries (object[], required: host, path, content_type, body as base64), mss, ttl.
 * Read handles: count, hits, passed, byte_count. Write handles: reset_counts.
 * <pre>new HttpCacheResponder("cache").entry(new CacheEntry("www.example.com", "/", "text/html", html))</pre>
 */
public final class HttpCacheResponder extends ProcessingBlock {

    public static final String TYPE = "HttpCacheResponder";
    static final String DESCRIPTOR = "blocks/" + TYPE + ".json";

    private final List<CacheEntry> entries = new ArrayList<>();

    public HttpCacheResponder(String name) {
        super(name);
        list("entries");
    }

    /** Adds a cached object; entries are tried in order. */
    public HttpCacheResponder entry(CacheEntry e) {
        ObjectNode o = list("entries").addObject();
        if (!e.host().isEmpty()) {
            o.put("host", e.host());
        }
        o.put("path", e.path()).put("content_type", e.contentType())
                .put("body", Base64.getEncoder().encodeToString(e.body()));
        entries.add(e);
        return this;
    }

    /** Largest TCP payload of one response segment (64..9000, default 1460). */
    public HttpCacheResponder mss(int value) {
        set("mss", value);
        return this;
    }

    /** IPv4 TTL of the responses (1..255, default 64). */
    public HttpCacheResponder ttl(int value) {
        set("ttl", value);
        return this;
    }

    public List<CacheEntry> entries() {
        return List.copyOf(entries);
    }

    @Override
    public void check() {
        requireRules("entries", "cached entries");
        requireRange("mss", 64, 9000);
        requireRange("ttl", 1, 255);
        for (int i = 0; i < entries.size(); i++) {
            CacheEntry e = entries.get(i);
            if (e.responseSize() > CacheEntry.MAX_RESPONSE) {
                throw invalid(ErrorSubtype.BAD_BLOCK, "entry " + i + " (" + e.path() + "): the response is "
                        + e.responseSize() + " bytes, more than " + CacheEntry.MAX_RESPONSE);
            }
        }
    }

    /**
     * {@code base} plus this block's descriptor, unless {@code base} already has the type (then
     * the catalogue's own descriptor is the one that counts).
     */
    public static Catalogue withDescriptor(Catalogue base) {
        if (base.find(TYPE).isPresent()) {
            return base;
        }
        try (InputStream in = HttpCacheResponder.class.getResourceAsStream(DESCRIPTOR)) {
            if (in == null) {
                throw new IllegalStateException("the packaged descriptor " + DESCRIPTOR + " is missing");
            }
            return base.with(Catalogue.parse(new ObjectMapper().readTree(in)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the " + TYPE + " descriptor: " + e.getMessage(), e);
        }
    }
}
