package org.openbox.apps.ips;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.openbox.api.AppContext;
import org.openbox.api.Application;
import org.openbox.api.FailureMode;
import org.openbox.api.Priority;
import org.openbox.api.Statement;
import org.openbox.api.event.AlertEvent;
import org.openbox.api.event.LogEvent;

/**
 * The intrusion prevention application ("ips"): Snort 2.9 rules run as one header-and-payload
 * classifier whose matches raise alerts and, for drop rules, discard the packet (graph in
 * {@link IpsGraph}, configuration in {@link IpsConfig}). Rules it cannot express are skipped
 * and reported, each with its reason: a log line when the rules are loaded and
 * {@link #skipped()}. Alerts are counted per sid, read back from the alert text
 * ({@link #alertsBySid()}).
 */
public class IpsApp extends Application {

    private static final Logger LOG = System.getLogger(IpsApp.class.getName());

    private final IpsConfig config;
    private final Map<Long, AtomicLong> alertsBySid = new ConcurrentHashMap<>();
    private volatile SnortRuleParser.Result loaded;

    /** The IPS configured from its properties file (see {@link IpsConfig#load()}). */
    public IpsApp() {
        this(IpsConfig.load());
    }

    public IpsApp(IpsConfig config) {
        this.config = config;
    }

    /** Between the firewall (high) and the web cache (medium): inspect what the firewall lets through. */
    /** Closed: an IPS that fails must not let traffic through uninspected (the operator may override it). */
    @Override
    public FailureMode failureMode() {
        return FailureMode.CLOSED;
    }

    @Override
    public int priority() {
        return (Priority.HIGH + Priority.MEDIUM) / 2;
    }

    @Override
    public String name() {
        return "ips";
    }

    public IpsConfig config() {
        return config;
    }

    @Override
    public List<Statement> statements() {
        SnortRuleParser.Result rules = rules();
        IpsGraph g = IpsGraph.build(rules.rules(), config);
        LOG.log(Level.INFO, "ips: installing {0} rules as {1} classifier rows at {2}",
                String.valueOf(rules.rules().size()), String.valueOf(g.rows()), config.location());
        return List.of(new Statement(config.location(), g.graph()));
    }

    @Override
    public void start(AppContext ctx) {
        SnortRuleParser.Result rules = rules();
        LOG.log(Level.INFO, "ips: started with {0} rules ({1} skipped)",
                String.valueOf(rules.rules().size()), String.valueOf(rules.skipped().size()));
    }

    /** The rules, parsed once; skipped rules are logged when they are parsed. */
    private SnortRuleParser.Result rules() {
        SnortRuleParser.Result r = loaded;
        if (r == null) {
            synchronized (this) {
                r = loaded;
                if (r == null) {
                    r = config.parseRules();
                    report(r);
                    loaded = r;
                }
            }
        }
        return r;
    }

    private void report(SnortRuleParser.Result r) {
        String source = config.rulesFile() == null ? "sample rules" : config.rulesFile().toString();
        Level level = r.skipped().isEmpty() ? Level.INFO : Level.WARNING;
        LOG.log(level, "ips: {0}: {1} rules run, {2} skipped",
                source, String.valueOf(r.rules().size()), String.valueOf(r.skipped().size()));
        for (SkippedRule s : r.skipped()) {
            LOG.log(Level.INFO, "ips: skipped line {0} sid {1}: {2}",
                    String.valueOf(s.line()), Long.toString(s.sid()), s.reason());
        }
    }

    /** The rules that run. */
    public List<SnortRule> rulesRun() {
        return rules().rules();
    }

    /** The rules that were skipped, with the reason of each. */
    public List<SkippedRule> skipped() {
        return rules().skipped();
    }

    @Override
    public void onAlert(AlertEvent e) {
        long sid = IpsGraph.sidOf(e.message());
        alertsBySid.computeIfAbsent(sid, k -> new AtomicLong()).incrementAndGet();
        LOG.log(Level.INFO, "ips alert dpid {0} sid {1} severity {2}: {3}",
                Long.toString(e.dpid()), Long.toString(sid), e.severity(), e.message());
    }

    /** Log rules report through Log blocks; they are counted like alerts. */
    @Override
    public void onLog(LogEvent e) {
        long sid = IpsGraph.sidOf(e.message());
        alertsBySid.computeIfAbsent(sid, k -> new AtomicLong()).incrementAndGet();
    }

    /** Alerts (and logs) received per sid (-1 for an alert whose text carries no sid). */
    public Map<Long, Long> alertsBySid() {
        Map<Long, Long> out = new TreeMap<>();
        alertsBySid.forEach((sid, n) -> out.put(sid, n.get()));
        return out;
    }
}
