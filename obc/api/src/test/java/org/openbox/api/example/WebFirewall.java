package org.openbox.api.example;

import java.util.ArrayList;
import java.util.List;
import org.openbox.api.AppContext;
import org.openbox.api.Application;
import org.openbox.api.GraphBuilder;
import org.openbox.api.Location;
import org.openbox.api.Priority;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.Statement;
import org.openbox.api.blocks.Alert;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.HeaderPayloadClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.event.AlertEvent;
import org.openbox.api.match.Match;
import org.openbox.api.match.PayloadPattern;

/**
 * A small example application: on segment "dmz", drop SSH from outside 10/8, alert on
 * SQL-injection-looking HTTP requests and forward everything else.
 */
public class WebFirewall extends Application {

    private final List<AlertEvent> alerts = new ArrayList<>();
    private AppContext context;

    @Override
    public String name() {
        return "web-firewall";
    }

    @Override
    public int priority() {
        return Priority.HIGH;
    }

    @Override
    public List<Statement> statements() {
        FromDevice in = new FromDevice("in", "eth0");
        HeaderClassifier acl = new HeaderClassifier("acl")
                .rule(Match.of().ipv4Src("10.0.0.0/8")) // 0: inside, trusted
                .rule(Match.of().tcpDst(22)) // 1: SSH from outside
                .rule(Match.of()); // 2: the rest
        HeaderPayloadClassifier web = new HeaderPayloadClassifier("web")
                .rule(Match.of().tcpDst(80), PayloadPattern.regex("(?i)union\\s+select"))
                .rule(Match.of());
        Alert sqli = new Alert("sqli").alert("SQL injection attempt", 4).attachPacket(true);
        ToDevice out = new ToDevice("out", "eth1");
        ProcessingGraph graph = new GraphBuilder()
                .connect(in, acl)
                .connect(acl, 0, out)
                .connect(acl, 1, new Discard("ssh-drop"))
                .connect(acl, 2, web)
                .connect(web, 0, sqli)
                .connect(sqli, 0, new Discard("sqli-drop"))
                .connect(web, 1, new ToDevice("out2", "eth2"))
                .build();
        return List.of(new Statement(Location.segment("dmz"), graph));
    }

    @Override
    public void start(AppContext ctx) {
        this.context = ctx;
    }

    @Override
    public void onAlert(AlertEvent e) {
        alerts.add(e);
        // react: read how many packets the ACL matched per rule
        if (context != null) {
            context.handles().read("acl", "count");
        }
    }

    public List<AlertEvent> alerts() {
        return alerts;
    }
}
