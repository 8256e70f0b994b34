package org.openbox.controller.management;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppLifecycle;
import org.openbox.controller.events.AlertLog;
import org.openbox.controller.events.AlertRecord;
import org.openbox.controller.handles.HandleRouter;
import org.openbox.controller.isolation.AppReload;
import org.openbox.controller.isolation.AppStatus;
import org.openbox.controller.isolation.FailurePolicy;
import org.openbox.controller.obi.ObiManager;
import org.openbox.controller.obi.ObiQueries;
import org.openbox.controller.obi.ObiSession;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * Management REST API (JSON) for operators: OBIs, their merged graphs with provenance,
 * applications (start / stop / reload, failure modes), recent alerts, and on-demand OBI queries (global stats,
 * parameters, capabilities, reading a merged block's handle).
 */
@RestController
@RequestMapping("/api")
public class ManagementController {

    private final ObiManager obis;
    private final ObiQueries queries;
    private final GraphAggregator aggregator;
    private final AppCatalog apps;
    private final AppLifecycle lifecycle;
    private final AlertLog alerts;
    private final HandleRouter handles;
    private final AppReload reload;
    private final AppStatus status;
    private final FailurePolicy policy;

    public ManagementController(ObiManager obis, ObiQueries queries, GraphAggregator aggregator, AppCatalog apps,
                                AppLifecycle lifecycle, AlertLog alerts, HandleRouter handles, AppReload reload,
                                AppStatus status, FailurePolicy policy) {
        this.reload = reload;
        this.status = status;
        this.policy = policy;
        this.obis = obis;
        this.queries = queries;
        this.aggregator = aggregator;
        this.apps = apps;
        this.lifecycle = lifecycle;
        this.alerts = alerts;
        this.handles = handles;
    }

    @GetMapping("/obis")
    public List<ObiView> obis() {
        return obis.sessions().stream().map(s -> ObiView.of(s, aggregator.current(s.dpid()), aggregator.excluded(s.dpid()))).toList();
    }

    @GetMapping("/obis/{dpid}")
    public ObiDetail obi(@PathVariable("dpid") long dpid) {
        ObiSession s = session(dpid);
        return new ObiDetail(ObiView.of(s, aggregator.current(dpid), aggregator.excluded(dpid)), s.capabilities());
    }

    @GetMapping("/obis/{dpid}/graph")
    public GraphView graph(@PathVariable("dpid") long dpid) {
        session(dpid);
        DeployedGraph g = aggregator.current(dpid);
        return new GraphView(dpid, g.graph().toJson(), g.origins().all(), g.apps(), g.report(), g.composition(),
                aggregator.failure(dpid).orElse(null));
    }

    @GetMapping("/obis/{dpid}/stats")
    public CompletableFuture<JsonNode> stats(@PathVariable("dpid") long dpid) {
        return queries.globalStats(session(dpid));
    }

    @GetMapping("/obis/{dpid}/parameters")
    public CompletableFuture<JsonNode> parameters(@PathVariable("dpid") long dpid) {
        return queries.parameters(session(dpid));
    }

    @GetMapping("/obis/{dpid}/capabilities")
    public CompletableFuture<JsonNode> capabilities(@PathVariable("dpid") long dpid) {
        return queries.capabilities(session(dpid));
    }

    @GetMapping("/obis/{dpid}/blocks/{block}/{handle}")
    public CompletableFuture<JsonNode> readMerged(@PathVariable("dpid") long dpid, @PathVariable("block") String block,
                                                  @PathVariable("handle") String handle) {
        return queries.read(session(dpid), block, handle);
    }

    @GetMapping("/apps")
    public List<AppView> apps() {
        return apps.all().stream().map(e -> AppView.of(e, status, policy.overridden(e.name()))).toList();
    }

    /** A handle of an application's own block, as the application sees it (combined over OBIs). */
    @GetMapping("/apps/{name}/blocks/{block}/{handle}")
    public CompletableFuture<JsonNode> readAsApp(@PathVariable("name") String name, @PathVariable("block") String block,
                                                 @PathVariable("handle") String handle) {
        if (apps.get(name).isEmpty()) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no application named '" + name + "'");
        }
        return handles.read(name, block, handle);
    }

    @PostMapping("/apps/{name}/start")
    public ResponseEntity<AppActionResult> start(@PathVariable("name") String name) {
        return answer(name, lifecycle.start(name));
    }

    @PostMapping("/apps/{name}/stop")
    public ResponseEntity<AppActionResult> stop(@PathVariable("name") String name) {
        return answer(name, lifecycle.stop(name));
    }

    /**
     * Reads the application's settings and rules again and deploys its new graph without
     * interrupting traffic; on any failure the old graph keeps running and the answer (4xx/5xx)
     * says why.
     */
    @PostMapping("/apps/{name}/reload")
    public ResponseEntity<AppActionResult> reload(@PathVariable("name") String name) {
        AppReload.Outcome o = reload.reload(name);
        return ResponseEntity.status(o.status()).body(new AppActionResult(name, o.ok(), o.state(), o.message()));
    }

    @GetMapping("/alerts")
    public List<AlertRecord> alerts(@RequestParam(name = "limit", defaultValue = "100") int limit,
                                    @RequestParam(name = "app", required = false) String app) {
        return alerts.recent(Math.max(0, Math.min(limit, 10_000)), app);
    }

    private ResponseEntity<AppActionResult> answer(String name, AppLifecycle.Result r) {
        AppActionResult body = new AppActionResult(name, r.ok(), r.state() == null ? null : r.state().name(), r.message());
        HttpStatus status = r.ok() ? HttpStatus.OK : r.state() == null ? HttpStatus.NOT_FOUND : HttpStatus.CONFLICT;
        return ResponseEntity.status(status).body(body);
    }

    private ObiSession session(long dpid) {
        return obis.session(dpid).orElseThrow(() ->
                new ResponseStatusException(HttpStatus.NOT_FOUND, "no OBI with dpid " + dpid));
    }
}
