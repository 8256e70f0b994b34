package org.openbox.controller.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.function.LongFunction;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.openbox.controller.bench.SimulatedObiServer.Http;

/**
 * The controller-bound side of many simulated OBIs in one thread: POSTs to the controller,
 * one at a time per OBI, in the order given, on that OBI's own kept-alive connection (with
 * TLS presenting its certificate and checking that the controller's names the address
 * connected to). Like the OBI, a connection has 1 s to open and an answer 2 s to come (TLS
 * handshake included); otherwise the POST fails (status -1) and the connection is dropped.
 * A POST that fails on a reused connection before its answer is sent once more on a new one
 * (the server may have closed it while idle). {@link Done} runs on the client's thread and
 * must not block. Latency counts from submission, so queueing is included.
 */
final class SimulatedObiClient implements AutoCloseable {

    /** Receives the HTTP status (or -1 when no answer came) and the latency in nanoseconds. */
    interface Done {
        void done(int status, long nanos);
    }

    private static final long CONNECT_NANOS = 1_000_000_000L;
    private static final long ANSWER_NANOS = 2_000_000_000L;
    private static final long CHECK_NANOS = 20_000_000L;
    private static final int MAX_HEAD = 16 * 1024;

    private record Job(long dpid, byte[] request, long submitted, Done done) {}

    private final String host;
    private final int port;
    private final InetSocketAddress controller;
    private final LongFunction<SSLContext> tls;
    private final Selector selector;
    private final ConcurrentLinkedQueue<Job> submitted = new ConcurrentLinkedQueue<>();
    private final Map<Long, Peer> peers = new HashMap<>(); // the client's thread only
    private final Executor tasks;
    private final ConcurrentLinkedQueue<NioPipe> resumed = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean closed;

    /**
     * Plain HTTP when {@code tls} is null; else the context presenting OBI dpid's
     * certificate, and {@code tasks} runs the TLS handshakes' computations.
     */
    SimulatedObiClient(String host, int port, LongFunction<SSLContext> tls, Executor tasks) throws IOException {
        this.tasks = tasks;
        this.host = host;
        this.port = port;
        this.controller = new InetSocketAddress(host, port);
        this.tls = tls;
        this.selector = Selector.open();
        this.thread = new Thread(this::loop, "simulated-obi-client");
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues a POST of OBI {@code dpid}. */
    void post(long dpid, String path, String body, Done done) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
                        + "\r\nContent-Type: application/json\r\nContent-Length: " + b.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[head.length + b.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(b, 0, request, head.length, b.length);
        submitted.add(new Job(dpid, request, System.nanoTime(), done));
        selector.wakeup();
    }

    private void loop() {
        long checked = System.nanoTime();
        while (!closed) {
            try {
                selector.select(CHECK_NANOS / 1_000_000);
            } catch (IOException e) {
                return;
            }
            for (Job j = submitted.poll(); j != null; j = submitted.poll()) {
                peers.computeIfAbsent(j.dpid(), Peer::new).queue(j);
            }
            for (NioPipe pipe = resumed.poll(); pipe != null; pipe = resumed.poll()) {
                Peer p = (Peer) pipe.key().attachment();
                if (p.pipe != pipe) {
                    continue; // that connection was dropped meanwhile
                }
                try {
                    p.handle(pipe.resume());
                } catch (IOException | RuntimeException e) {
                    p.failed(false);
                }
            }
            for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey key = it.next();
                it.remove();
                Peer p = (Peer) key.attachment();
                try {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isConnectable()) {
                        p.connected();
                        continue;
                    }
                    if (key.isWritable()) {
                        p.pipe.flush();
                    }
                    if (key.isValid() && key.isReadable()) {
                        p.handle(p.pipe.read());
                    }
                } catch (IOException | RuntimeException e) {
                    p.failed(false);
                }
            }
            long now = System.nanoTime();
            if (now - checked >= CHECK_NANOS) {
                checked = now;
                for (Peer p : peers.values()) {
                    p.checkDeadline(now);
                }
            }
        }
        peers.values().forEach(Peer::closeConnection);
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** One simulated OBI's connection and its queue of POSTs. */
    private final class Peer {
        private final long dpid;
        private final ArrayDeque<Job> queue = new ArrayDeque<>();
        private Job current;
        private boolean retried;
        private boolean reused;
        private long deadline;
        private SocketChannel ch;
        private SelectionKey key;
        private NioPipe pipe;

        Peer(long dpid) {
            this.dpid = dpid;
        }

        void queue(Job j) {
            queue.add(j);
            next();
        }

        private void next() {
            if (current != null || queue.isEmpty()) {
                return;
            }
            current = queue.poll();
            retried = false;
            start();
        }

        private void start() {
            try {
                if (pipe != null) {
                    reused = true;
                    send();
                    return;
                }
                reused = false;
                ch = SocketChannel.open();
                ch.configureBlocking(false);
                ch.socket().setTcpNoDelay(true);
                deadline = System.nanoTime() + CONNECT_NANOS;
                boolean done = ch.connect(controller);
                key = ch.register(selector, done ? 0 : SelectionKey.OP_CONNECT, this);
                if (done) {
                    connected();
                }
            } catch (IOException | RuntimeException e) {
                failed(false);
            }
        }

        void connected() throws IOException {
            if (!ch.finishConnect()) {
                return;
            }
            SSLEngine engine = null;
            if (tls != null) {
                engine = tls.apply(dpid).createSSLEngine(host, port);
                engine.setUseClientMode(true);
                SSLParameters p = engine.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                engine.setSSLParameters(p);
            }
            key.interestOps(SelectionKey.OP_READ);
            pipe = new NioPipe(ch, key, engine, tasks, done -> {
                resumed.add(done);
                selector.wakeup();
            });
            send();
        }

        private void send() throws IOException {
            deadline = System.nanoTime() + ANSWER_NANOS;
            pipe.send(ByteBuffer.wrap(current.request()));
        }

        /** Takes the answer in {@code in} (the pipe's plain bytes) when it is complete. */
        void handle(ByteBuffer in) throws IOException {
            if (!in.hasRemaining()) {
                pipe.consumed(0);
                return;
            }
            if (current == null) {
                throw new IOException("bytes from the controller with no request outstanding");
            }
            int start = in.position();
            int headEnd = Http.headEnd(in);
            if (headEnd < 0) {
                if (in.remaining() > MAX_HEAD) {
                    throw new IOException("answer head larger than " + MAX_HEAD + " bytes");
                }
                pipe.consumed(0);
                return;
            }
            String head = new String(in.array(), start, headEnd - start, StandardCharsets.US_ASCII);
            String[] statusLine = head.split("\r\n", 2)[0].split(" ");
            int status;
            try {
                status = Integer.parseInt(statusLine[1]);
            } catch (RuntimeException e) {
                throw new IOException("bad status line");
            }
            int end = "chunked".equalsIgnoreCase(Http.header(head, "transfer-encoding"))
                    ? chunkedEnd(in, headEnd + 4)
                    : headEnd + 4 + contentLength(head);
            if (end < 0 || in.limit() < end) {
                pipe.consumed(end < 0 ? 0 : end - start);
                return;
            }
            in.position(end);
            pipe.consumed(0);
            if ("close".equalsIgnoreCase(Http.header(head, "connection"))) {
                closeConnection();
            }
            complete(status);
        }

        private static int contentLength(String head) throws IOException {
            String v = Http.header(head, "content-length");
            try {
                int n = v == null ? 0 : Integer.parseInt(v);
                if (n < 0) {
                    throw new IOException("bad Content-Length");
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IOException("bad Content-Length");
            }
        }

        /** Where a chunked body starting at {@code from} ends; -1 while incomplete. */
        private static int chunkedEnd(ByteBuffer in, int from) throws IOException {
            byte[] a = in.array();
            int i = from;
            while (true) {
                int eol = -1;
                for (int j = i; j + 1 < in.limit(); j++) {
                    if (a[j] == '\r' && a[j + 1] == '\n') {
                        eol = j;
                        break;
                    }
                }
                if (eol < 0) {
                    return -1;
                }
                int size;
                try {
                    size = Integer.parseInt(
                            new String(a, i, eol - i, StandardCharsets.US_ASCII).split(";")[0].trim(), 16);
                } catch (NumberFormatException e) {
                    throw new IOException("bad chunk size");
                }
                if (size == 0) {
                    return eol + 4 <= in.limit() ? eol + 4 : -1; // no trailers
                }
                i = eol + 2 + size + 2;
                if (i > in.limit()) {
                    return -1;
                }
            }
        }

        /** The connection broke (or, {@code timedOut}, the answer is late). */
        void failed(boolean timedOut) {
            boolean again = current != null && reused && !retried && !timedOut;
            closeConnection();
            if (again) {
                retried = true;
                start();
            } else if (current != null) {
                complete(-1);
            }
        }

        void checkDeadline(long now) {
            if (current != null && now - deadline > 0) {
                failed(true);
            }
        }

        private void complete(int status) {
            Job j = current;
            current = null;
            try {
                j.done().done(status, System.nanoTime() - j.submitted());
            } catch (RuntimeException e) {
                System.err.println("[bench] OBI " + dpid + ": " + e);
            }
            next();
        }

        void closeConnection() {
            if (key != null) {
                key.cancel();
            }
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
            pipe = null;
            key = null;
            ch = null;
        }
    }
}
