package org.openbox.api.blocks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.openbox.protocol.ErrorSubtype;

/**
 * Answers HTTP GET requests for cached objects from the network (a block of this project, not
 * in the spec). A request for a configured (host, path) is consumed and the response, built from
 * it with addresses and ports swapped and seq/ack continuing the client's connection, leaves on
 * output 0 (several segments when longer than mss); every other packet leaves on output 1
 * unchanged. Put a classifier in front that sends only candidate requests here, e.g. a
 * HeaderPayloadClassifier rule on the server port with the literal "GET " at offset 0.
 *
 * <p>Conveniences beside the generated {@link HttpCacheResponder}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/HttpCacheResponder.json.
 * <pre>new HttpCacheResponder("cache").entry("www.example.com", "/", "text/html", html).mss(1460)
 *     // 0 responses (towards the client), 1 the rest</pre>
 */
public abstract class HttpCacheResponderExtension extends ProcessingBlock {

    /** Largest whole response (status line, headers, body) of one entry, in bytes. */
    public static final int MAX_RESPONSE = 65535;

    HttpCacheResponderExtension(String name) {
        super(name);
    }

    /**
     * Adds to entries: a cached object, tried in the order added (first match wins).
     *
     * @param host        host name compared case-insensitively with the request's host (without
     *                    port); empty or null for any host
     * @param path        request target, starting with '/', compared exactly (query included)
     * @param contentType Content-Type of the response
     * @param body        the object's bytes
     */
    public HttpCacheResponder entry(String host, String path, String contentType, byte[] body) {
        ObjectNode o = list("entries").addObject();
        if (host != null && !host.isEmpty()) {
            o.put("host", host);
        }
        o.put("path", path)
                .put("content_type", contentType)
                .put("body", Base64.getEncoder().encodeToString(body));
        return (HttpCacheResponder) this;
    }

    /** Number of entries so far. */
    public int entries() {
        return size("entries");
    }

    /** The status line and headers sent before a body of {@code bodyLength} bytes. */
    public static String responseHead(String contentType, int bodyLength) {
        return "HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nContent-Length: " + bodyLength
                + "\r\nConnection: close\r\nX-Cache: HIT\r\n\r\n";
    }

    @Override
    public void check() {
        requireRules("entries", "cached entries");
        for (int i = 0; i < entries(); i++) {
            JsonNode e = get("entries").get(i);
            String path = e.path("path").asText();
            String where = "entry " + i + " (" + path + ")";
            if (!path.startsWith("/") || !token(path)) {
                throw invalid(
                        ErrorSubtype.BAD_BLOCK,
                        where + ": the path must start with '/' and be printable ASCII without spaces");
            }
            String host = e.path("host").asText("");
            if (!token(host) || host.contains(":")) {
                throw invalid(
                        ErrorSubtype.BAD_BLOCK,
                        where + ": host '" + host + "' must be a host name without port or spaces");
            }
            String type = e.path("content_type").asText("");
            if (type.isEmpty() || type.chars().anyMatch(c -> c < ' ' || c > '~')) {
                throw invalid(ErrorSubtype.BAD_BLOCK, where + ": the content type must be non-empty printable ASCII");
            }
            int body = Base64.getDecoder().decode(e.path("body").asText("")).length;
            int size = responseHead(type, body).getBytes(StandardCharsets.US_ASCII).length + body;
            if (size > MAX_RESPONSE) {
                throw invalid(
                        ErrorSubtype.BAD_BLOCK,
                        where + ": the response is " + size + " bytes, more than " + MAX_RESPONSE);
            }
        }
    }

    private static boolean token(String s) {
        return s.chars().allMatch(c -> c > ' ' && c <= '~');
    }
}
