package org.openbox.controller.management;

import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.AppLifecycle;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.events.AlertFilter;
import org.openbox.controller.events.AlertLog;
import org.openbox.controller.events.AlertRecord;
import org.openbox.controller.isolation.AppReload;
import org.openbox.controller.isolation.AppStatus;
import org.openbox.controller.isolation.FailurePolicy;
import org.openbox.controller.obi.ObiManager;
import org.openbox.controller.obi.ObiQueries;
import org.openbox.controller.obi.ObiSession;
import org.openbox.controller.handles.HandleRouter;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Management REST API (JSON) for operators: OBIs, their merged graphs with provenance,
 * applications (start / stop / reload, failure modes, classifier rules with hit counts), recent
 * alerts (filtered, and as a live stream), the topology, and on-demand OBI queries (global
 * stats, parameters, capabilities, reading a merged block's handle).
 */
@RestController
@RequestMapping("/api")
@Tag(name = "management", description = "OBIs, applications, alerts and topology (login required)")
@ApiResponse(responseCode = "401", description = "no valid login (HTTP Basic, bearer token or UI session)",
        content = @Content(mediaType = "application/json", schema = @Schema(implementation = ApiErrors.ApiError.class)))
@ApiResponse(responseCode = "403", description = "the login lacks the role (OPERATOR for POST), or a bad CSRF token",
        content = @Content(mediaType = "application/json", schema = @Schema(implementation = ApiErrors.ApiError.class)))
public class ManagementController {

    private static final String JSON = "application/json";

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
    private final AppRules rules;
    private final AlertStream stream;
    private final TopologyHolder topology;
    private final BlockCounters counters;

    public ManagementController(ObiManager obis, ObiQueries queries, GraphAggregator aggregator, AppCatalog apps,
                                AppLifecycle lifecycle, AlertLog alerts, HandleRouter handles, AppReload reload,
                                AppStatus status, FailurePolicy policy, AppRules rules, AlertStream stream,
                                TopologyHolder topology, BlockCounters counters) {
        this.counters = counters;
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
        this.rules = rules;
        this.stream = stream;
        this.topology = topology;
    }

    @Operation(summary = "List the OBIs", description = "Every OBI that said Hello: state, endpoint, graph status,"
            + " the applications in its graph, modules, excluded applications.")
    @Ok
    @GetMapping("/obis")
    public List<ObiView> obis() {
        return obis.sessions().stream().map(s -> ObiView.of(s, aggregator.current(s.dpid()), aggregator.excluded(s.dpid()))).toList();
    }

    @Operation(summary = "One OBI", description = "Its listing entry and the capabilities from its Hello.")
    @NotFound
    @Ok
    @GetMapping("/obis/{dpid}")
    public ObiDetail obi(@PathVariable("dpid") long dpid) {
        ObiSession s = session(dpid);
        return new ObiDetail(ObiView.of(s, aggregator.current(dpid), aggregator.excluded(dpid)), s.capabilities());
    }

    @Operation(summary = "An OBI's merged graph with provenance", description = "The merged graph (graph-file format,"
            + " a HeaderClassifier's `fuse` key names the classifiers it classifies for), for every merged block the"
            + " (application, block) pairs it implements, the applications, the merge report and the composition.")
    @NotFound
    @Ok
    @GetMapping("/obis/{dpid}/graph")
    public GraphView graph(@PathVariable("dpid") long dpid) {
        session(dpid);
        DeployedGraph g = aggregator.current(dpid);
        return new GraphView(dpid, g.graph().toJson(), g.origins().all(), g.apps(), g.report(), g.composition(),
                aggregator.failure(dpid).orElse(null));
    }

    @Operation(summary = "An OBI's global statistics", description = "The OBI's GlobalStatsResponse: packets, bytes,"
            + " drops and their rates, uptime, memory and CPU.")
    @NotFound
    @ObiFailures
    @ObiTimeout
    @Ok
    @GetMapping("/obis/{dpid}/stats")
    public CompletableFuture<JsonNode> stats(@PathVariable("dpid") long dpid) {
        return queries.globalStats(session(dpid));
    }

    @Operation(summary = "Packet counters of every block of an OBI's merged graph", description = "Per merged block"
            + " the read handles `count` and `rate` it has (numbers, or one per rule for classifiers), or `error`;"
            + " at most 256 blocks (`truncated`).")
    @NotFound
    @Ok
    @GetMapping("/obis/{dpid}/counters")
    public CompletableFuture<BlockCounters.Counters> counters(@PathVariable("dpid") long dpid) {
        return counters.read(session(dpid), aggregator.current(dpid));
    }

    @Operation(summary = "An OBI's parameters", description = "As the OBI reports them (GetParametersResponse).")
    @NotFound
    @ObiFailures
    @ObiTimeout
    @Ok
    @GetMapping("/obis/{dpid}/parameters")
    public CompletableFuture<JsonNode> parameters(@PathVariable("dpid") long dpid) {
        return queries.parameters(session(dpid));
    }

    @Operation(summary = "An OBI's capabilities, asked now", description = "The OBI's ListCapabilitiesResponse.")
    @NotFound
    @ObiFailures
    @ObiTimeout
    @Ok
    @GetMapping("/obis/{dpid}/capabilities")
    public CompletableFuture<JsonNode> capabilities(@PathVariable("dpid") long dpid) {
        return queries.capabilities(session(dpid));
    }

    @Operation(summary = "Read a merged block's handle on an OBI", description = "A ReadRequest to the OBI for a block"
            + " of its merged graph (e.g. `count` of a classifier: packets per merged rule).")
    @NotFound
    @ObiFailures
    @ObiTimeout
    @Ok
    @GetMapping("/obis/{dpid}/blocks/{block}/{handle}")
    public CompletableFuture<JsonNode> readMerged(@PathVariable("dpid") long dpid, @PathVariable("block") String block,
                                                  @PathVariable("handle") String handle) {
        return queries.read(session(dpid), block, handle);
    }

    @Operation(summary = "The network topology", description = "The segments of the topology file, each with its OBIs"
            + " (dpids) and sub-segments: `{\"segments\": [{\"name\", \"obis\", \"segments\"}]}`; empty without a file.")
    @Ok
    @GetMapping("/topology")
    public JsonNode topology() {
        return topology.topology().toJson();
    }

    @Operation(summary = "List the applications", description = "State (FAILED also when some OBI refused its graph:"
            + " `failedOn`), failure mode, what its traffic gets and why, source, last reload.")
    @Ok
    @GetMapping("/apps")
    public List<AppView> apps() {
        return apps.all().stream().map(e -> AppView.of(e, status, policy.overridden(e.name()))).toList();
    }

    @Operation(summary = "Read an application's block handle", description = "A handle of the application's own block,"
            + " as the application sees it: per-rule values in its own rule numbers, summed over the OBIs that are up.")
    @NotFound
    @ObiFailures
    @ObiTimeout
    @ApiResponse(responseCode = "400", description = "a handle the block does not have, a rule index out of range",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.ApiError.class)))
    @Ok
    @GetMapping("/apps/{name}/blocks/{block}/{handle}")
    public CompletableFuture<JsonNode> readAsApp(@PathVariable("name") String name, @PathVariable("block") String block,
                                                 @PathVariable("handle") String handle) {
        app(name);
        return handles.read(name, block, handle);
    }

    @Operation(summary = "An application's classifier rules with hit counts", description = "For each header, header-"
            + "and-payload, regex or content classifier of the application's own graph: its rules with the match as"
            + " the application wrote it, a one-line label (`tcp dst_port 22 -> ssh_alert`), the output and the hits"
            + " (packets, in the application's rule numbers, summed over the OBIs that are up or on OBI `dpid`; null"
            + " when they cannot be read, e.g. the application is stopped).")
    @NotFound
    @Ok
    @GetMapping("/apps/{name}/rules")
    public CompletableFuture<List<AppRules.ClassifierRules>> rules(
            @PathVariable("name") String name,
            @Parameter(description = "only the graph the application runs on this OBI, counted there")
            @RequestParam(name = "dpid", required = false) Long dpid) {
        AppEntry e = app(name);
        if (dpid != null) {
            session(dpid);
        }
        return rules.rules(e, dpid);
    }

    @Operation(summary = "Start an application (OPERATOR)")
    @ApiResponse(responseCode = "200", description = "started", useReturnTypeSchema = true)
    @ApiResponse(responseCode = "404", description = "no such application",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @ApiResponse(responseCode = "409", description = "it cannot be started now",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @PostMapping("/apps/{name}/start")
    public ResponseEntity<AppActionResult> start(@PathVariable("name") String name) {
        return answer(name, lifecycle.start(name));
    }

    @Operation(summary = "Stop an application (OPERATOR)", description = "Its blocks leave every merged graph; the stop"
            + " survives a controller restart.")
    @ApiResponse(responseCode = "200", description = "stopped", useReturnTypeSchema = true)
    @ApiResponse(responseCode = "404", description = "no such application",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @ApiResponse(responseCode = "409", description = "it cannot be stopped now",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @PostMapping("/apps/{name}/stop")
    public ResponseEntity<AppActionResult> stop(@PathVariable("name") String name) {
        return answer(name, lifecycle.stop(name));
    }

    /**
     * Reads the application's settings and rules again and deploys its new graph without
     * interrupting traffic; on any failure the old graph keeps running and the answer (4xx/5xx)
     * says why.
     */
    @Operation(summary = "Reload an application's settings and rules (OPERATOR)", description = "Deploys its new graph"
            + " without interrupting traffic; on any failure the old graph keeps running and the answer says why.")
    @ApiResponse(responseCode = "200", description = "reloaded", useReturnTypeSchema = true)
    @ApiResponse(responseCode = "400", description = "the new settings or rules are refused (FILE:LINE in message)",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @ApiResponse(responseCode = "404", description = "no such application",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @ApiResponse(responseCode = "422", description = "an OBI refused the new graph",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @PostMapping("/apps/{name}/reload")
    public ResponseEntity<AppActionResult> reload(@PathVariable("name") String name) {
        AppReload.Outcome o = reload.reload(name);
        return ResponseEntity.status(o.status()).body(new AppActionResult(name, o.ok(), o.state(), o.message()));
    }

    @Operation(summary = "Recent alerts, filtered", description = "Up to `limit` newest alerts that pass every filter"
            + " given, oldest first.")
    @BadRequest
    @Ok
    @GetMapping("/alerts")
    public List<AlertRecord> alerts(@RequestParam(name = "limit", defaultValue = "100") int limit,
                                    @Parameter(description = "owning application; `(none)` for alerts without one")
                                    @RequestParam(name = "app", required = false) String app,
                                    @Parameter(description = "OBI") @RequestParam(name = "dpid", required = false) Long dpid,
                                    @Parameter(description = "lowest severity, 1..5")
                                    @RequestParam(name = "minSeverity", required = false) Integer minSeverity,
                                    @Parameter(description = "the application's block or the merged block")
                                    @RequestParam(name = "block", required = false) String block,
                                    @Parameter(description = "part of the message, any case")
                                    @RequestParam(name = "text", required = false) String text,
                                    @Parameter(description = "ISO-8601 instant, inclusive")
                                    @RequestParam(name = "since", required = false) String since,
                                    @Parameter(description = "ISO-8601 instant, inclusive")
                                    @RequestParam(name = "until", required = false) String until) {
        return alerts.recent(Math.max(0, Math.min(limit, 10_000)),
                filter(app, dpid, minSeverity, block, text, since, until));
    }

    @Operation(summary = "Live alerts (Server-Sent Events)", description = "Every new alert that passes the filters"
            + " (as for /api/alerts) as an event named `alert` whose data is the alert's JSON; comment lines keep an"
            + " idle stream open. The stream ends after openbox.alert-stream.timeout (an EventSource reconnects).")
    @ApiResponse(responseCode = "200", description = "the stream", content = @Content(mediaType = "text/event-stream"))
    @BadRequest
    @ApiResponse(responseCode = "503", description = "too many streams open",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.StatusError.class)))
    @GetMapping(path = "/alerts/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public SseEmitter alertStream(@RequestParam(name = "app", required = false) String app,
                                  @RequestParam(name = "dpid", required = false) Long dpid,
                                  @RequestParam(name = "minSeverity", required = false) Integer minSeverity,
                                  @RequestParam(name = "block", required = false) String block,
                                  @RequestParam(name = "text", required = false) String text,
                                  @RequestParam(name = "since", required = false) String since,
                                  @RequestParam(name = "until", required = false) String until) {
        AlertFilter f = filter(app, dpid, minSeverity, block, text, since, until);
        try {
            return stream.open(f);
        } catch (AlertStream.TooManyStreamsException e) {
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        }
    }

    private static AlertFilter filter(String app, Long dpid, Integer minSeverity, String block, String text,
                                      String since, String until) {
        try {
            return new AlertFilter(app, dpid, minSeverity, block, text, instant("since", since), instant("until", until));
        } catch (IllegalArgumentException e) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private static Instant instant(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + " is not an ISO-8601 instant (e.g. 2026-01-31T12:00:00Z): "
                    + (value.length() > 64 ? value.substring(0, 64) + "..." : value));
        }
    }

    private ResponseEntity<AppActionResult> answer(String name, AppLifecycle.Result r) {
        AppActionResult body = new AppActionResult(name, r.ok(), r.state() == null ? null : r.state().name(), r.message());
        HttpStatus status = r.ok() ? HttpStatus.OK : r.state() == null ? HttpStatus.NOT_FOUND : HttpStatus.CONFLICT;
        return ResponseEntity.status(status).body(body);
    }

    private AppEntry app(String name) {
        return apps.get(name).orElseThrow(() ->
                new ResponseStatusException(HttpStatus.NOT_FOUND, "no application named '" + name + "'"));
    }

    private ObiSession session(long dpid) {
        return obis.session(dpid).orElseThrow(() ->
                new ResponseStatusException(HttpStatus.NOT_FOUND, "no OBI with dpid " + dpid));
    }

    /** Documents the answer: the return type's JSON. */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
    @ApiResponse(responseCode = "200", description = "OK", useReturnTypeSchema = true)
    @interface Ok {}

    /** Documents the 404 of an unknown OBI or application. */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
    @ApiResponse(responseCode = "404", description = "no OBI with that dpid, no application with that name, or a"
            + " block the application does not run on an OBI that is up",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.StatusError.class)))
    @interface NotFound {}

    /** Documents the 400 of a malformed parameter. */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
    @ApiResponse(responseCode = "400", description = "a malformed or out-of-range parameter (one line in message)",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.StatusError.class)))
    @interface BadRequest {}

    /** Documents the failures of a query forwarded to an OBI. */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
    @ApiResponse(responseCode = "502", description = "the OBI answered with an Error (type/subtype) or is unreachable",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.ApiError.class)))
    @interface ObiFailures {}

    /** Documents an OBI that does not answer in time. */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
    @ApiResponse(responseCode = "504", description = "the OBI did not answer in time",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.ApiError.class)))
    @interface ObiTimeout {}
}
