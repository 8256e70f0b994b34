package org.openbox.apps.ips;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openbox.api.AlertRule;
import org.openbox.api.AppContext;
import org.openbox.api.AppSettings;
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
    private static final Pattern ALERT_BLOCK = Pattern.compile("sid-(\\d{1,18})(?:-line-(\\d{1,9}))?");
    private static final Pattern CLASSIFIER_RULE =
            Pattern.compile("block '" + IpsGraph.CLASSIFIER + "'.*?\\brule (\\d{1,9})\\b");

    private final Map<Long, AtomicLong> alertsBySid = new ConcurrentHashMap<>();
    private volatile IpsConfig config;
    private volatile SnortRuleParser.Result loaded;

    /**
     * The IPS as the controller loads it: configured by {@link #configure}, or from its
     * properties file (see {@link IpsConfig#load()}) when used without a controller.
     */
    public IpsApp() {}

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

    @Override
    public Set<String> settingKeys() {
        return IpsConfig.KEYS;
    }

    /** Reads the settings, the variables and the rules; errors name the key or the file:line. */
    @Override
    public synchronized void configure(AppSettings settings) {
        IpsConfig c = IpsConfig.from(settings);
        SnortRuleParser.Result r = c.parseRules();
        config = c;
        loaded = r;
        report(r);
    }

    public synchronized IpsConfig config() {
        if (config == null) {
            config = IpsConfig.load();
        }
        return config;
    }

    /** Row {@code rule} of the signatures classifier: the rule file line of its Snort rule. */
    @Override
    public Optional<String> ruleOrigin(String block, int rule) {
        if (!IpsGraph.CLASSIFIER.equals(block) || rule < 0) {
            return Optional.empty();
        }
        int row = 0;
        for (SnortRule r : rules().rules()) { // rows in rule order, one per header alternative
            row += r.headers().size();
            if (rule < row) {
                return Optional.of(config().rulesSource() + ":" + r.line());
            }
        }
        return Optional.empty();
    }

    @Override
    public List<Statement> statements() {
        SnortRuleParser.Result rules = rules();
        IpsConfig config = config();
        IpsGraph g;
        try {
            g = IpsGraph.build(rules.rules(), config);
        } catch (RuntimeException e) {
            throw withRuleLine(e);
        }
        LOG.log(
                Level.INFO,
                "ips: installing {0} rules as {1} classifier rows at {2}",
                String.valueOf(rules.rules().size()),
                String.valueOf(g.rows()),
                config.location());
        return List.of(new Statement(config.location(), g.graph()));
    }

    @Override
    public void start(AppContext ctx) {
        SnortRuleParser.Result rules = rules();
        LOG.log(
                Level.INFO,
                "ips: started with {0} rules ({1} skipped)",
                String.valueOf(rules.rules().size()),
                String.valueOf(rules.skipped().size()));
    }

    /** A graph error naming a classifier rule, prefixed with that rule's FILE:LINE. */
    private RuntimeException withRuleLine(RuntimeException e) {
        Matcher m = CLASSIFIER_RULE.matcher(String.valueOf(e.getMessage()));
        Optional<String> origin =
                m.find() ? ruleOrigin(IpsGraph.CLASSIFIER, Integer.parseInt(m.group(1))) : Optional.empty();
        return origin.isPresent() ? new IllegalArgumentException(origin.get() + ": " + e.getMessage(), e) : e;
    }

    /** The rules, parsed once; skipped rules are logged when they are parsed. */
    private SnortRuleParser.Result rules() {
        SnortRuleParser.Result r = loaded;
        if (r == null) {
            synchronized (this) {
                r = loaded;
                if (r == null) {
                    r = config().parseRules();
                    report(r);
                    loaded = r;
                }
            }
        }
        return r;
    }

    private void report(SnortRuleParser.Result r) {
        String source = config().rulesSource();
        Level level = r.skipped().isEmpty() ? Level.INFO : Level.WARNING;
        LOG.log(
                level,
                "ips: {0}: {1} rules run, {2} skipped",
                source,
                String.valueOf(r.rules().size()),
                String.valueOf(r.skipped().size()));
        for (SkippedRule s : r.skipped()) {
            LOG.log(
                    Level.INFO,
                    "ips: skipped line {0} sid {1}: {2}",
                    String.valueOf(s.line()),
                    Long.toString(s.sid()),
                    s.reason());
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

    /** Block "sid-N" (or "sid-N-line-L" for a repeated sid) alerts for that Snort rule. */
    @Override
    public Optional<AlertRule> alertRule(String block) {
        Matcher m = block == null ? null : ALERT_BLOCK.matcher(block);
        if (m == null || !m.matches()) {
            return Optional.empty();
        }
        long sid;
        int line;
        try {
            sid = Long.parseLong(m.group(1));
            line = m.group(2) == null ? -1 : Integer.parseInt(m.group(2));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        for (SnortRule r : rules().rules()) { // "sid-N": the first alerting rule with that sid
            if (r.sid() == sid && (line < 0 ? IpsGraph.reports(r) : r.line() == line)) {
                return Optional.of(new AlertRule(r.sid(), r.rev(), r.msg(), config().rulesSource() + ":" + r.line()));
            }
        }
        return Optional.empty();
    }

    @Override
    public void onAlert(AlertEvent e) {
        long sid = IpsGraph.sidOf(e.message());
        alertsBySid.computeIfAbsent(sid, k -> new AtomicLong()).incrementAndGet();
        LOG.log(
                Level.DEBUG,
                "ips alert dpid {0} sid {1} severity {2}: {3}",
                Long.toString(e.dpid()),
                Long.toString(sid),
                e.severity(),
                e.message());
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
