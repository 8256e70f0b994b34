package org.openbox.controller.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

/**
 * The REST side of many simulated OBIs in one thread: one listening socket on every local
 * address (0.0.0.0), so a connection's local address (127.1.x.y) tells which OBI the
 * controller is talking to. Plain HTTP, or mutual TLS with that OBI's certificate (its own
 * {@link SSLContext}, chosen by the local address since the controller connects to an
 * address and sends no server name) and the controller's required. Every request
 * ({@code POST}, Content-Length body of at most 1 MiB) is answered 200 with no body on a
 * kept-alive connection and handed to the {@link Handler} on the server's thread (it must
 * not block). A connection that breaks these rules, or whose TLS fails, is closed; so is one
 * idle for {@link #KEEP_ALIVE_NANOS}, as the OBI does after its {@code --http-keepalive-ms}.
 */
final class SimulatedObiServer implements AutoCloseable {

    /** Receives a request's body for OBI {@code dpid}; runs on the server's one thread. */
    interface Handler {
        void message(long dpid, byte[] body);
    }

    /** The OBI's default --http-keepalive-ms. */
    static final long KEEP_ALIVE_NANOS = 15_000_000_000L;

    private static final int MAX_HEAD = 16 * 1024;
    private static final int MAX_BODY = 1 << 20;
    private static final byte[] OK = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final Selector selector;
    private final ServerSocketChannel listener;
    private final ToLongFunction<InetAddress> dpidAt;
    private final LongFunction<SSLContext> tls;
    private final Handler handler;
    private final Executor tasks;
    private final ConcurrentLinkedQueue<NioPipe> resumed = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean closed;
    private long lastSweep = System.nanoTime();

    /**
     * {@code tls} null: plain HTTP; else the context presenting OBI dpid's certificate, and
     * {@code tasks} runs the TLS handshakes' computations.
     */
    SimulatedObiServer(
            ToLongFunction<InetAddress> dpidAt, LongFunction<SSLContext> tls, Executor tasks, Handler handler)
            throws IOException {
        this.dpidAt = dpidAt;
        this.tls = tls;
        this.tasks = tasks;
        this.handler = handler;
        this.selector = Selector.open();
        this.listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress("0.0.0.0", 0), 4096);
        listener.configureBlocking(false);
        listener.register(selector, SelectionKey.OP_ACCEPT);
        this.thread = new Thread(this::loop, "simulated-obi-server");
        thread.setDaemon(true);
        thread.start();
    }

    /** The port every simulated OBI listens on. */
    int port() {
        return listener.socket().getLocalPort();
    }

    private void loop() {
        while (!closed) {
            try {
                selector.select(200);
            } catch (IOException e) {
                return;
            }
            long now = System.nanoTime();
            if (now - lastSweep > 1_000_000_000L) {
                lastSweep = now;
                for (SelectionKey key : selector.keys()) {
                    if (key.attachment() instanceof Connection c && now - c.lastUsed > KEEP_ALIVE_NANOS) {
                        drop(key);
                    }
                }
            }
            for (NioPipe pipe = resumed.poll(); pipe != null; pipe = resumed.poll()) {
                SelectionKey key = pipe.key();
                try {
                    if (key.isValid()) {
                        ((Connection) key.attachment()).handle(pipe.resume());
                    }
                } catch (IOException | RuntimeException e) {
                    drop(key);
                }
            }
            for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey key = it.next();
                it.remove();
                try {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        accept();
                        continue;
                    }
                    Connection c = (Connection) key.attachment();
                    if (key.isWritable()) {
                        c.pipe.flush();
                    }
                    if (key.isValid() && key.isReadable()) {
                        c.handle(c.pipe.read());
                    }
                } catch (IOException | RuntimeException e) {
                    drop(key);
                }
            }
        }
    }

    private void accept() throws IOException {
        for (SocketChannel ch = listener.accept(); ch != null; ch = listener.accept()) {
            ch.configureBlocking(false);
            ch.socket().setTcpNoDelay(true);
            long dpid = dpidAt.applyAsLong(((InetSocketAddress) ch.getLocalAddress()).getAddress());
            SSLEngine engine = null;
            if (tls != null) {
                engine = tls.apply(dpid).createSSLEngine();
                engine.setUseClientMode(false);
                engine.setNeedClientAuth(true); // like an OBI: only the controller may talk to it
            }
            SelectionKey key = ch.register(selector, SelectionKey.OP_READ);
            try {
                key.attach(new Connection(new NioPipe(ch, key, engine, tasks, this::resume), dpid));
            } catch (IOException | RuntimeException e) {
                drop(key);
            }
        }
    }

    private void resume(NioPipe pipe) {
        resumed.add(pipe);
        selector.wakeup();
    }

    private static void drop(SelectionKey key) {
        key.cancel();
        try {
            key.channel().close();
        } catch (IOException ignored) {
            // closing
        }
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
        for (SelectionKey key : selector.keys()) {
            drop(key);
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** One accepted connection. */
    private final class Connection {
        private final NioPipe pipe;
        private final long dpid;
        private long lastUsed = System.nanoTime(); // the server's thread only

        Connection(NioPipe pipe, long dpid) {
            this.pipe = pipe;
            this.dpid = dpid;
        }

        /** Answers and hands on every complete request in {@code in} (the pipe's plain bytes). */
        void handle(ByteBuffer in) throws IOException {
            int need = 0;
            while (true) {
                int start = in.position();
                int headEnd = Http.headEnd(in);
                if (headEnd < 0) {
                    if (in.remaining() > MAX_HEAD) {
                        throw new IOException("request head larger than " + MAX_HEAD + " bytes");
                    }
                    break;
                }
                String head = new String(in.array(), start, headEnd - start, StandardCharsets.US_ASCII);
                int length = contentLength(head);
                int end = headEnd + 4 + length;
                if (in.limit() < end) {
                    need = end - start;
                    break;
                }
                byte[] body = new byte[length];
                System.arraycopy(in.array(), headEnd + 4, body, 0, length);
                in.position(end);
                pipe.send(ByteBuffer.wrap(OK));
                lastUsed = System.nanoTime();
                handler.message(dpid, body);
            }
            pipe.consumed(need);
        }

        private static int contentLength(String head) throws IOException {
            if (!head.startsWith("POST ")) {
                throw new IOException("not a POST");
            }
            String chunked = Http.header(head, "transfer-encoding");
            if (chunked != null) {
                throw new IOException("chunked requests are not supported");
            }
            String length = Http.header(head, "content-length");
            int n;
            try {
                n = length == null ? 0 : Integer.parseInt(length);
            } catch (NumberFormatException e) {
                throw new IOException("bad Content-Length");
            }
            if (n < 0 || n > MAX_BODY) {
                throw new IOException("body of " + n + " bytes (at most " + MAX_BODY + ")");
            }
            return n;
        }
    }

    /** HTTP/1.1 head parsing shared with {@link SimulatedObiClient}. */
    static final class Http {
        private Http() {}

        /** Index of the CRLFCRLF ending the head that starts at the buffer's position; -1 when not there yet. */
        static int headEnd(ByteBuffer b) {
            byte[] a = b.array();
            for (int i = b.position(); i + 3 < b.limit(); i++) {
                if (a[i] == '\r' && a[i + 1] == '\n' && a[i + 2] == '\r' && a[i + 3] == '\n') {
                    return i;
                }
            }
            return -1;
        }

        /** The value of the header {@code name} (lower case) in {@code head}, or null. */
        static String header(String head, String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0
                        && line.substring(0, colon)
                                .trim()
                                .toLowerCase(Locale.ROOT)
                                .equals(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }
}
