package org.openbox.controller.bench;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

/**
 * One connected non-blocking socket of the simulated OBIs, plain or through a TLS engine
 * (client or server mode, handshake included): {@link #read} gives what arrived as plain
 * bytes, {@link #send} takes plain bytes (held while the handshake runs) and writes what the
 * socket takes, the rest when the selector says it is writable. Buffers grow up to 4 MiB;
 * beyond that, or on any TLS failure, an IOException and the caller drops the connection.
 * Used by one selector thread only; the TLS engine's handshake computations (its delegated
 * tasks: signatures, key exchange, certificate checks) run on {@code tasks}, and the pipe
 * goes on through {@code resume} (which must run it on the selector thread) when they are
 * done, so one selector thread serves many handshakes at once.
 */
final class NioPipe {

    private static final int LIMIT = 4 << 20;
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private final SocketChannel ch;
    private final SelectionKey key;
    private final SSLEngine engine; // null: plain
    private ByteBuffer netIn; // TLS records read, not yet decrypted (write mode)
    private ByteBuffer app; // plain bytes received, not yet consumed (write mode)
    private ByteBuffer pending; // plain bytes to send once the handshake is done (write mode)
    private ByteBuffer out; // bytes not yet written (write mode)
    private final Executor tasks;
    private final Consumer<NioPipe> resume;
    private boolean tasking; // delegated tasks running: the engine waits for them

    /**
     * {@code engine} in its mode, handshake not begun; null for plain. {@code resume} is
     * given this pipe when its delegated tasks are done and must call {@link #resume()} on
     * the selector thread.
     */
    NioPipe(SocketChannel ch, SelectionKey key, SSLEngine engine, Executor tasks, Consumer<NioPipe> resume)
            throws IOException {
        this.ch = ch;
        this.key = key;
        this.engine = engine;
        this.tasks = tasks;
        this.resume = resume;
        int packet = engine == null ? 4096 : engine.getSession().getPacketBufferSize();
        int plain = engine == null ? 4096 : engine.getSession().getApplicationBufferSize();
        this.netIn = ByteBuffer.allocate(packet);
        this.app = ByteBuffer.allocate(plain);
        this.pending = ByteBuffer.allocate(1024);
        this.out = ByteBuffer.allocate(packet);
        if (engine != null) {
            engine.beginHandshake();
            pump(); // a client's first flight
        }
    }

    /**
     * The delegated tasks are done: the engine goes on (selector thread). Returns what
     * {@link #read} would: the plain bytes received so far; call {@link #consumed} after.
     */
    ByteBuffer resume() throws IOException {
        tasking = false;
        pump();
        app.flip();
        return app;
    }

    SelectionKey key() {
        return key;
    }

    /** Reads what the socket has; returns the plain bytes received so far, in read mode. Call {@link #consumed} after. */
    ByteBuffer read() throws IOException {
        if (engine == null) {
            if (!app.hasRemaining()) {
                app = grow(app, app.capacity() * 2);
            }
            if (ch.read(app) < 0) {
                throw new EOFException();
            }
        } else {
            if (ch.read(netIn) < 0) {
                throw new EOFException();
            }
            pump();
        }
        app.flip();
        return app;
    }

    /** Keeps what {@link #read} returned and was not consumed, with room for at least {@code need} bytes in all. */
    void consumed(int need) throws IOException {
        app.compact();
        if (need > app.capacity()) {
            app = grow(app, need);
        }
    }

    /** Sends {@code src} (plain bytes), all of it. */
    void send(ByteBuffer src) throws IOException {
        if (engine == null) {
            out = ensure(out, src.remaining());
            out.put(src);
            flush();
        } else {
            pending = ensure(pending, src.remaining());
            pending.put(src);
            pump();
        }
    }

    /** Writes what the socket takes; asks for OP_WRITE while bytes remain. */
    void flush() throws IOException {
        if (!key.isValid()) {
            return;
        }
        out.flip();
        try {
            ch.write(out);
        } finally {
            out.compact();
        }
        int read = tasking ? 0 : SelectionKey.OP_READ; // nothing more is read while the engine waits
        key.interestOps(out.position() > 0 ? read | SelectionKey.OP_WRITE : read);
    }

    void close() {
        key.cancel();
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** Runs the engine as far as it goes: handshake steps, decrypting what was read, encrypting what waits. */
    private void pump() throws IOException {
        if (tasking) {
            return;
        }
        netIn.flip();
        try {
            boolean more = true;
            while (more) {
                SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
                if (hs == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                    tasking = true;
                    more = false;
                    tasks.execute(() -> {
                        for (Runnable task = engine.getDelegatedTask();
                                task != null;
                                task = engine.getDelegatedTask()) {
                            task.run();
                        }
                        resume.accept(this);
                    });
                } else if (hs == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                    wrap(NOTHING);
                } else if (hs == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && pending.position() > 0) {
                    pending.flip();
                    try {
                        wrap(pending);
                    } finally {
                        pending.compact();
                    }
                } else if (!netIn.hasRemaining()) {
                    more = false;
                } else {
                    SSLEngineResult r = engine.unwrap(netIn, app);
                    switch (r.getStatus()) {
                        case BUFFER_UNDERFLOW -> more = false; // a partial record: wait for the rest
                        case BUFFER_OVERFLOW -> app =
                                grow(app, app.capacity() + engine.getSession().getApplicationBufferSize());
                        case CLOSED -> throw new EOFException();
                        default -> {
                            // OK: next record or handshake step
                        }
                    }
                }
            }
        } finally {
            netIn.compact();
        }
        flush();
    }

    private void wrap(ByteBuffer src) throws IOException {
        do {
            SSLEngineResult r = engine.wrap(src, out);
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                out = grow(out, out.capacity() + engine.getSession().getPacketBufferSize());
            } else if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new EOFException("TLS closed");
            }
        } while (src.hasRemaining());
    }

    private static ByteBuffer ensure(ByteBuffer b, int more) throws IOException {
        return b.remaining() >= more ? b : grow(b, b.position() + more);
    }

    /** A larger buffer (write mode) with {@code b}'s contents; {@code b} is in write mode. */
    private static ByteBuffer grow(ByteBuffer b, int atLeast) throws IOException {
        int size = Math.max(b.capacity() * 2, atLeast);
        if (size > LIMIT) {
            throw new IOException("more than " + LIMIT + " bytes buffered");
        }
        ByteBuffer bigger = ByteBuffer.allocate(size);
        b.flip();
        bigger.put(b);
        return bigger;
    }
}
