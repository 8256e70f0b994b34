import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.openbox.api.Application;
import org.openbox.api.Statement;

/**
 * The processing graph of a real application, as the OBI graph file ({"blocks", "connectors"}).
 *
 * <pre>java -cp APP_CLASSES:obc/api/target/classes:obc/merge/target/lib/* bench/AppGraph.java \
 *     CLASS CONFIG.properties OUT.json [CLASS CONFIG.properties OUT.json ...]</pre>
 *
 * For each triple: the application class (e.g. org.openbox.apps.firewall.FirewallApp) is
 * instantiated with its public no-argument constructor while system property
 * {@code openbox.app.NAME.config} names CONFIG (NAME: the application's name(), read from a
 * throw-away instance first), so the application reads its settings exactly as under the
 * controller. Its single statement's graph is written to OUT. One line per graph on stdout:
 * {"app":..,"class":..,"config":..,"out":..,"blocks":N,"connectors":N,"ms":X}.
 */
public final class AppGraph {
    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args.length % 3 != 0) {
            System.err.println("usage: AppGraph CLASS CONFIG.properties OUT.json [...]");
            System.exit(2);
        }
        ObjectMapper mapper = new ObjectMapper();
        for (int i = 0; i < args.length; i += 3) {
            String cls = args[i];
            Path config = Path.of(args[i + 1]).toAbsolutePath();
            Path out = Path.of(args[i + 2]);
            Class<? extends Application> c = Class.forName(cls).asSubclass(Application.class);
            // The name is fixed by the class; the config is read by the no-argument constructor.
            String name = nameOf(c, config);
            System.setProperty("openbox.app." + name + ".config", config.toString());
            long t0 = System.nanoTime();
            Application app = c.getDeclaredConstructor().newInstance();
            List<Statement> st = app.statements();
            double ms = (System.nanoTime() - t0) / 1e6;
            if (st.size() != 1) throw new IllegalStateException(cls + ": " + st.size() + " statements, expected 1");
            ObjectNode g = st.get(0).graph().toJson();
            Files.writeString(out, mapper.writeValueAsString(g) + "\n");
            System.out.printf(java.util.Locale.ROOT,
                    "{\"app\":\"%s\",\"class\":\"%s\",\"config\":\"%s\",\"out\":\"%s\",\"blocks\":%d,\"connectors\":%d,\"ms\":%.1f}%n",
                    name, cls, config, out, g.get("blocks").size(), g.get("connectors").size(), ms);
        }
    }

    /** The application's name: every sample application's name() is a constant, so any config will do. */
    private static String nameOf(Class<? extends Application> c, Path config) throws Exception {
        String simple = c.getSimpleName().replaceAll("App$", "").toLowerCase();
        String before = System.getProperty("openbox.app." + simple + ".config");
        System.setProperty("openbox.app." + simple + ".config", config.toString());
        try {
            return c.getDeclaredConstructor().newInstance().name();
        } finally {
            if (before == null) System.clearProperty("openbox.app." + simple + ".config");
            else System.setProperty("openbox.app." + simple + ".config", before);
        }
    }
}
