package org.openbox.controller.testobi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.message.AddCustomModuleRequest;
import org.openbox.protocol.message.AddCustomModuleResponse;
import org.openbox.protocol.message.Alert;
import org.openbox.protocol.message.AlertEntry;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.GetParametersRequest;
import org.openbox.protocol.message.GetParametersResponse;
import org.openbox.protocol.message.GlobalStatsRequest;
import org.openbox.protocol.message.GlobalStatsResponse;
import org.openbox.protocol.message.Hello;
import org.openbox.protocol.message.KeepAlive;
import org.openbox.protocol.message.ListCapabilitiesRequest;
import org.openbox.protocol.message.ListCapabilitiesResponse;
import org.openbox.protocol.message.Log;
import org.openbox.protocol.message.LogEntry;
import org.openbox.protocol.message.Message;
import org.openbox.protocol.message.ReadRequest;
import org.openbox.protocol.message.ReadResponse;
import org.openbox.protocol.message.RemoveCustomModuleRequest;
import org.openbox.protocol.message.RemoveCustomModuleResponse;
import org.openbox.protocol.message.SetParametersRequest;
import org.openbox.protocol.message.SetParametersResponse;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.openbox.protocol.message.SetProcessingGraphResponse;
import org.openbox.protocol.message.WriteRequest;
import org.openbox.protocol.message.WriteResponse;

/**
 * A protocol-faithful OBI for tests: a real HTTP server ({@code POST /message/<Type>}) that
 * decodes every down message with the protocol codec, answers 200 (or 400 with an Error
 * body), records the message, and then sends the proper answer message to the controller
 * as its own POST with the same xid (SetParametersResponse, SetProcessingGraphResponse,
 * ReadResponse, WriteResponse, GlobalStatsResponse, GetParametersResponse (keeps the
 * keepalive_interval it was given), ListCapabilitiesResponse, Add/RemoveCustomModuleResponse
 * (it records modules but loads nothing); nothing for BarrierRequest). Like an OBI of the
 * spec alone it knows only the spec's parameters: a SetParametersRequest with another (the
 * {@code metrics_subscription} extension) is answered with BAD_REQUEST / ILLEGAL_ARGUMENT.
 * It also sends Hello, KeepAlive, Alert and Log on demand. What it answers to
 * reads and whether it refuses a request can be set per test.
 *
 * <p>With TLS ({@link #TestObi(long, String, SSLContext, SSLContext)}) it speaks HTTPS both
 * ways like a real OBI: its server requires a client certificate from the CA and serves only
 * one whose common name is {@code openbox-controller}, whatever else the subject holds
 * (anything else: 403 with FORBIDDEN / NOT_PERMITTED); the
 * subjects of the client certificates it served are kept ({@link #peers()}).
 */
public final class TestObi implements AutoCloseable {

    private final long dpid;
    private final URI controller;
    private final MessageCodec codec = new MessageCodec();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final HttpClient http;
    private final List<String> peers = new ArrayList<>();
    private final AtomicLong xids = new AtomicLong(1_000_000);
    private final List<Message> received = new ArrayList<>();
    private volatile BiFunction<String, String, JsonNode> reads =
            (block, handle) -> codec.mapper().getNodeFactory().numberNode(0);
    private volatile long keepaliveInterval = 10;
    private volatile java.util.function.Supplier<ObjectNode> stats =
            () -> codec.mapper().createObjectNode().put("uptime", 1).put("cpus", 1);
    private static final java.util.Set<String> SPEC_PARAMETERS = java.util.Set.of(
            "keepalive_interval",
            "log_server_address",
            "log_server_port",
            "storage_server_address",
            "storage_server_port",
            "log_messages_buffer_size",
            "log_messages_buffer_timeout",
            "alert_messages_buffer_size",
            "alert_messages_buffer_timeout");
    private volatile Function<Message, Optional<ErrorMessage>> refuse = m -> Optional.empty();
    private volatile Predicate<Message> silent = m -> false;

    public TestObi(long dpid, String controllerUrl) throws IOException {
        this(dpid, controllerUrl, null, null);
    }

    /**
     * An OBI speaking HTTPS: {@code clientTls} for its messages to the controller (its client
     * certificate), {@code serverTls} for its REST server (its server certificate, the CA that
     * client certificates must chain to). Null for both: plain HTTP.
     */
    public TestObi(long dpid, String controllerUrl, SSLContext clientTls, SSLContext serverTls) throws IOException {
        this.dpid = dpid;
        this.controller = URI.create(controllerUrl);
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
        if (clientTls != null) {
            b.sslContext(clientTls);
        }
        this.http = b.build();
        InetSocketAddress local = new InetSocketAddress("127.0.0.1", 0);
        if (serverTls == null) {
            this.server = HttpServer.create(local, 64);
        } else {
            HttpsServer https = HttpsServer.create(local, 64);
            https.setHttpsConfigurator(new HttpsConfigurator(serverTls) {
                @Override
                public void configure(HttpsParameters params) {
                    SSLParameters p = getSSLContext().getDefaultSSLParameters();
                    p.setNeedClientAuth(true);
                    params.setSSLParameters(p);
                }
            });
            this.server = https;
        }
        this.server.createContext("/message/", this::receive);
        server.setExecutor(executor);
        server.start();
    }

    public long dpid() {
        return dpid;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** What ReadRequests are answered with, by merged block and handle. */
    public void onRead(BiFunction<String, String, JsonNode> answer) {
        this.reads = answer;
    }

    /** What it answers to GlobalStatsRequest (uptime and cpus unless set). */
    public void onGlobalStats(java.util.function.Supplier<ObjectNode> answer) {
        this.stats = answer;
    }

    /** Takes matching requests (HTTP 200) but never sends their answer message, like an OBI that hangs or dies. */
    public void neverAnswer(Predicate<Message> rule) {
        this.silent = rule;
    }

    /** Answers matching requests with an Error message instead of the normal answer. */
    public void refuseWhen(Function<Message, Optional<ErrorMessage>> rule) {
        this.refuse = rule;
    }

    // ------------------------------------------------------------------ up messages

    public HttpResponse<String> hello() {
        ObjectNode caps = codec.mapper().createObjectNode();
        caps.putArray("proto_messages").add("AddCustomModuleRequest").add("RemoveCustomModuleRequest");
        return post(new Hello(xids.getAndIncrement(), dpid, "1.1.0", caps, "127.0.0.1", port()));
    }

    public HttpResponse<String> keepAlive() {
        return post(new KeepAlive(xids.getAndIncrement(), dpid));
    }

    public HttpResponse<String> alert(String originBlock, String message) {
        AlertEntry e = new AlertEntry(1, System.currentTimeMillis() / 1000.0, message, 3, "AAEC", originBlock, null);
        return post(new Alert(xids.getAndIncrement(), dpid, List.of(e)));
    }

    public HttpResponse<String> log(String originBlock, String message) {
        LogEntry e = new LogEntry(1, System.currentTimeMillis() / 1000.0, message, 1, null, originBlock);
        return post(new Log(xids.getAndIncrement(), dpid, List.of(e)));
    }

    public HttpResponse<String> post(Message m) {
        return postRaw(m.type(), codec.encode(m));
    }

    public HttpResponse<String> postRaw(String type, String body) {
        try {
            HttpRequest r = HttpRequest.newBuilder(controller.resolve("/message/" + type))
                    .header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(5))
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build();
            return http.send(r, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ down messages

    /** Everything received so far, in arrival order. */
    public synchronized List<Message> received() {
        return List.copyOf(received);
    }

    public synchronized <T extends Message> List<T> received(Class<T> type) {
        return received.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Waits until {@code count} messages of the type arrived; returns them. */
    public <T extends Message> List<T> await(Class<T> type, int count, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (received(type).size() < count) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("OBI " + dpid + ": expected " + count + " " + type.getSimpleName()
                            + " within " + timeout + ", got " + received(type).size() + "; all received: "
                            + received.stream().map(Message::type).toList());
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return received(type);
        }
    }

    /** Subjects of the client certificates of the down messages served over HTTPS, in order. */
    public synchronized List<String> peers() {
        return List.copyOf(peers);
    }

    /** Whether a certificate subject's common name is the controller's, as the OBI checks it. */
    static boolean isController(String subject) {
        try {
            List<Rdn> cns = new LdapName(subject)
                    .getRdns().stream()
                            .filter(r -> r.getType().equalsIgnoreCase("CN"))
                            .toList();
            return cns.size() == 1 && "openbox-controller".equals(cns.get(0).getValue());
        } catch (InvalidNameException e) {
            return false;
        }
    }

    private void receive(HttpExchange ex) throws IOException {
        if (ex instanceof HttpsExchange https) {
            String subject;
            try {
                subject = ((X509Certificate) https.getSSLSession().getPeerCertificates()[0])
                        .getSubjectX500Principal()
                        .getName();
            } catch (SSLPeerUnverifiedException e) {
                subject = "";
            }
            synchronized (this) {
                peers.add(subject);
            }
            if (!isController(subject)) {
                respond(
                        ex,
                        403,
                        codec.encode(new ErrorMessage(
                                0,
                                ErrorType.FORBIDDEN,
                                ErrorSubtype.NOT_PERMITTED,
                                "not the controller: " + subject,
                                null)));
                return;
            }
        }
        byte[] body = ex.getRequestBody().readAllBytes();
        String type = ex.getRequestURI().getPath().substring("/message/".length());
        Message m;
        try {
            m = codec.decode(type, body);
        } catch (ProtocolException e) {
            respond(ex, 400, codec.encode(new ErrorMessage(0, e.type(), e.subtype(), e.getMessage(), null)));
            return;
        }
        synchronized (this) {
            received.add(m);
            notifyAll();
        }
        respond(ex, 200, "");
        if (silent.test(m)) {
            return;
        }
        Optional<ErrorMessage> error = refuse.apply(m);
        Optional<Message> answer = error.isPresent() ? Optional.of(error.get()) : answer(m);
        answer.ifPresent(a -> executor.execute(() -> post(a)));
    }

    private Optional<Message> answer(Message m) {
        if (m instanceof SetParametersRequest r) {
            for (var it = r.parameters().fieldNames(); it.hasNext(); ) {
                String name = it.next();
                if (!SPEC_PARAMETERS.contains(name)) {
                    return Optional.of(new ErrorMessage(
                            r.xid(),
                            ErrorType.BAD_REQUEST,
                            ErrorSubtype.ILLEGAL_ARGUMENT,
                            "parameter " + name + " is unknown",
                            null));
                }
            }
            if (r.parameters().has("keepalive_interval")) {
                keepaliveInterval = r.parameters().get("keepalive_interval").asLong();
            }
            return Optional.of(new SetParametersResponse(r.xid()));
        } else if (m instanceof SetProcessingGraphRequest r) {
            return Optional.of(new SetProcessingGraphResponse(r.xid(), null, null));
        } else if (m instanceof ReadRequest r) {
            return Optional.of(
                    new ReadResponse(r.xid(), r.blockId(), r.readHandle(), reads.apply(r.blockId(), r.readHandle())));
        } else if (m instanceof WriteRequest r) {
            return Optional.of(new WriteResponse(r.xid(), r.blockId(), r.writeHandle()));
        } else if (m instanceof GlobalStatsRequest r) {
            return Optional.of(new GlobalStatsResponse(r.xid(), stats.get()));
        } else if (m instanceof GetParametersRequest r) {
            ObjectNode params = codec.mapper().createObjectNode();
            params.put("keepalive_interval", keepaliveInterval);
            return Optional.of(new GetParametersResponse(r.xid(), params));
        } else if (m instanceof AddCustomModuleRequest r) {
            return Optional.of(new AddCustomModuleResponse(r.xid()));
        } else if (m instanceof RemoveCustomModuleRequest r) {
            return Optional.of(new RemoveCustomModuleResponse(r.xid()));
        } else if (m instanceof ListCapabilitiesRequest r) {
            return Optional.of(
                    new ListCapabilitiesResponse(r.xid(), codec.mapper().createObjectNode()));
        }
        return Optional.empty();
    }

    private static void respond(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
